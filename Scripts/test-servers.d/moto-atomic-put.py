"""moto's server with conditional PUTs made atomic, as S3's are.

moto checks `If-None-Match: *` and then stores the object as two steps, on a threaded server: two
racing creators of one key can both succeed, which real S3 never allows (the contract suite's
`concurrentExclusiveCreatesHaveOneWinner` saw 2 of 16 win). This wraps moto's object PUT in a lock,
so the check and the write are one step; everything else stays concurrent. Arguments are
moto_server's.
"""
import threading

from moto.s3.responses import S3Response
from moto.server import main

_put_object = S3Response.put_object
_lock = threading.Lock()


def _atomic_put_object(self, *args, **kwargs):
    with _lock:
        return _put_object(self, *args, **kwargs)


S3Response.put_object = _atomic_put_object

if __name__ == "__main__":
    main()
