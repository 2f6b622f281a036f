"""moto's server with conditional PUTs made atomic, and conflicting ones refused, as S3's are.

moto checks `If-None-Match: *` and then stores the object as two steps, on a threaded server: two
racing creators of one key can both succeed, which real S3 never allows (the contract suite's
`concurrentExclusiveCreatesHaveOneWinner` saw 2 of 16 win). This wraps moto's object PUT in a lock,
so the check and the write are one step; everything else stays concurrent.

S3 also refuses a conditional PUT that meets another one of the same key in flight with
`409 ConditionalRequestConflict` ("retry the request"), so here a conditional PUT that arrives
while another of its key is being stored is answered that way too. With the environment variable
ROLLSYNC_MOTO_CONDITIONAL_CONFLICTS=always, every conditional PUT of a key that exists is answered
409 instead of 412: the worst a client can meet (conflicts until it gives up), for the test that a
losing creator still learns that the file exists. Arguments are moto_server's.
"""
import os
import threading

from moto.s3.responses import S3Response
from moto.server import main

_put_object = S3Response.put_object
_store = threading.Lock()
_state = threading.Lock()
_in_flight = set()
_always_conflict = os.environ.get("ROLLSYNC_MOTO_CONDITIONAL_CONFLICTS") == "always"
_CONFLICT = (
    '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code>'
    "<Message>A conflicting operation occurred. If using PutObject you can retry the request.</Message></Error>"
)


def _exists(response, key):
    try:
        return response.backend.get_object(response.bucket_name, key) is not None
    except Exception:
        return False


def _put_object_as_s3(self, *args, **kwargs):
    if self.headers.get("If-None-Match") != "*":
        with _store:
            return _put_object(self, *args, **kwargs)
    target = (self.bucket_name, self.parse_key_name())
    with _state:
        if target in _in_flight or (_always_conflict and _exists(self, target[1])):
            return 409, {"Content-Type": "application/xml"}, _CONFLICT
        _in_flight.add(target)
    try:
        with _store:
            return _put_object(self, *args, **kwargs)
    finally:
        with _state:
            _in_flight.discard(target)


S3Response.put_object = _put_object_as_s3

if __name__ == "__main__":
    main()
