/// Multistatus bodies captured from the real test servers (Apache 2.4 mod_dav_fs and wsgidav 4.x
/// on Debian 12) for a collection `/sample/` holding `sp ace 世界 ?#&+%.txt` (3 bytes), `empty`
/// (0 bytes) and the collection `sub dir/`, requested with the store's property list.
enum MultistatusSamples {
    /// Apache, `Depth: 1` on `/sample/`: `D:`/`lp1:`/`g0:` prefixes, lowercase percent-encoding,
    /// a raw `&amp;` and `+`, a separate 404 propstat for `getcontentlength` on collections.
    static let apacheDepth1 = #"""
<?xml version="1.0" encoding="utf-8"?>
<D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
<D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/" xmlns:g0="DAV:">
<D:href>/sample/</D:href>
<D:propstat>
<D:prop>
<lp1:resourcetype><D:collection/></lp1:resourcetype>
<lp1:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</lp1:getlastmodified>
<lp1:getetag>W/"1000-660d504ca01a5"</lp1:getetag>
</D:prop>
<D:status>HTTP/1.1 200 OK</D:status>
</D:propstat>
<D:propstat>
<D:prop>
<g0:getcontentlength/>
</D:prop>
<D:status>HTTP/1.1 404 Not Found</D:status>
</D:propstat>
</D:response>
<D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
<D:href>/sample/sp%20ace%20%e4%b8%96%e7%95%8c%20%3f%23&amp;+%25.txt</D:href>
<D:propstat>
<D:prop>
<lp1:resourcetype/>
<lp1:getcontentlength>3</lp1:getcontentlength>
<lp1:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</lp1:getlastmodified>
<lp1:getetag>W/"3-660d504c9e265"</lp1:getetag>
</D:prop>
<D:status>HTTP/1.1 200 OK</D:status>
</D:propstat>
</D:response>
<D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/" xmlns:g0="DAV:">
<D:href>/sample/sub%20dir/</D:href>
<D:propstat>
<D:prop>
<lp1:resourcetype><D:collection/></lp1:resourcetype>
<lp1:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</lp1:getlastmodified>
<lp1:getetag>W/"1000-660d504c9d2c5"</lp1:getetag>
</D:prop>
<D:status>HTTP/1.1 200 OK</D:status>
</D:propstat>
<D:propstat>
<D:prop>
<g0:getcontentlength/>
</D:prop>
<D:status>HTTP/1.1 404 Not Found</D:status>
</D:propstat>
</D:response>
<D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
<D:href>/sample/empty</D:href>
<D:propstat>
<D:prop>
<lp1:resourcetype/>
<lp1:getcontentlength>0</lp1:getcontentlength>
<lp1:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</lp1:getlastmodified>
<lp1:getetag>W/"0-660d504c9f205"</lp1:getetag>
</D:prop>
<D:status>HTTP/1.1 200 OK</D:status>
</D:propstat>
</D:response>
</D:multistatus>
"""#

    /// wsgidav, `Depth: 1` on `/sample/`: `ns0:` prefix, uppercase percent-encoding with `&` and
    /// `+` encoded, unquoted ETags, everything on one line.
    static let wsgidavDepth1 = #"""
<?xml version="1.0" encoding="utf-8" ?>
<ns0:multistatus xmlns:ns0="DAV:"><ns0:response><ns0:href>/sample/</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype><ns0:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</ns0:getlastmodified></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat><ns0:propstat><ns0:prop><ns0:getcontentlength /><ns0:getetag /></ns0:prop><ns0:status>HTTP/1.1 404 Not Found</ns0:status></ns0:propstat></ns0:response><ns0:response><ns0:href>/sample/sp%20ace%20%E4%B8%96%E7%95%8C%20%3F%23%26%2B%25.txt</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype /><ns0:getcontentlength>3</ns0:getcontentlength><ns0:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</ns0:getlastmodified><ns0:getetag>5318839-1795317884-3</ns0:getetag></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response><ns0:response><ns0:href>/sample/sub%20dir/</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype><ns0:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</ns0:getlastmodified></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat><ns0:propstat><ns0:prop><ns0:getcontentlength /><ns0:getetag /></ns0:prop><ns0:status>HTTP/1.1 404 Not Found</ns0:status></ns0:propstat></ns0:response><ns0:response><ns0:href>/sample/empty</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype /><ns0:getcontentlength>0</ns0:getcontentlength><ns0:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</ns0:getlastmodified><ns0:getetag>5318840-1795317884-0</ns0:getetag></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response></ns0:multistatus>
"""#

    /// Apache, `Depth: 0` on the empty file.
    static let apacheDepth0 = #"""
<?xml version="1.0" encoding="utf-8"?>
<D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
<D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
<D:href>/sample/empty</D:href>
<D:propstat>
<D:prop>
<lp1:resourcetype/>
<lp1:getcontentlength>0</lp1:getcontentlength>
<lp1:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</lp1:getlastmodified>
<lp1:getetag>W/"0-660d504c9f205"</lp1:getetag>
</D:prop>
<D:status>HTTP/1.1 200 OK</D:status>
</D:propstat>
</D:response>
</D:multistatus>
"""#

    /// wsgidav, `Depth: 0` on the empty file.
    static let wsgidavDepth0 = #"""
<?xml version="1.0" encoding="utf-8" ?>
<ns0:multistatus xmlns:ns0="DAV:"><ns0:response><ns0:href>/sample/empty</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype /><ns0:getcontentlength>0</ns0:getcontentlength><ns0:getlastmodified>Sun, 22 Nov 2026 03:24:44 GMT</ns0:getlastmodified><ns0:getetag>5318840-1795317884-0</ns0:getetag></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response></ns0:multistatus>
"""#
}
