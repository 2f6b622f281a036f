"""moto's server with conditional PUTs made atomic, and conflicting ones refused, as S3's are.

moto checks `If-None-Match: *` and then stores the object as two steps, on a threaded server: two
racing creators of one key can both succeed, which real S3 never allows (the contract suite's
`concurrentExclusiveCreatesHaveOneWinner` saw 2 of 16 win). This wraps moto's object PUT in a lock,
so the check and the write are one step, and its reads, copies and multipart completions too, so
a reader sees an object whole, as on S3; everything else stays concurrent.

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
# Reentrant: a copy or a multipart completion may store through put_object itself.
_store = threading.RLock()
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


def _atomic(method):
    """`method` run under the store lock: an object is replaced whole before anyone reads it."""

    def run(self, *args, **kwargs):
        with _store:
            return method(self, *args, **kwargs)

    return run


# moto replaces an object in steps (a copy or a multipart completion closes the old value's
# buffer while it builds the new one), so a GET racing it could return part of the new object,
# which S3 never does (the contract suite's copyIsNeverVisiblePartially saw 4 of 20 MiB under
# load). Reads and replacements take the lock in turn.
S3Response.get_object = _atomic(S3Response.get_object)
S3Response.copy_object = _atomic(S3Response.copy_object)
S3Response._key_response_post = _atomic(S3Response._key_response_post)

if __name__ == "__main__":
    main()
