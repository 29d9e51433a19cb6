#!/usr/bin/env python3
"""A loopback stand-in for anaconda.org and prefix.dev, for splitforge's tests.

fake_services.py TOKEN PORT_FILE LOG_FILE serves, on a free 127.0.0.1 port
(written to PORT_FILE once bound), the two upload protocols splitforge speaks,
and checks every request against them as the clients it follows send them:

anaconda.org (anaconda-client's binstar_client), every API call with
"Authorization: token TOKEN", x-binstar-api-version and JSON:
  GET/POST /package/O/N, GET/POST /release/O/N/V, GET/DELETE /dist/O/N/V/S/F,
  POST /stage/O/N/V/S/F -> {post_url, form_data, dist_id},
  POST /s3/<dist_id>     the storage's form POST: no Authorization, the
                         form_data fields in order, Content-Length,
                         Content-MD5, then "file" (filename S/F) last,
  POST /commit/O/N/V/S/F {dist_id}.
prefix.dev (rattler_upload's prefix.rs), with "Authorization: Bearer TOKEN":
  GET  /C/S/repodata.json          what the channel holds (channel "lagging":
                                   always 404, as an index not yet updated)
  POST /api/v1/upload/C[?force=true] multipart, one part "file" with its own
                                   Content-Type, Content-Length, X-File-Name
                                   and X-File-SHA256; 409 when the name is
                                   taken and force is not set.
Each request is logged to LOG_FILE as one JSON line {method, path, status}
(plus "error" when the request broke the protocol, answered 400 or 401).
"""
import base64
import hashlib
import http.server
import io
import json
import os
import re
import sys
import tarfile
import urllib.parse

TOKEN, PORT_FILE, LOG_FILE = sys.argv[1], sys.argv[2], sys.argv[3]
packages, releases, dists, staged = {}, {}, {}, {}
prefix = {}  # (channel, subdir) -> {file: sha256}


class ProtocolError(Exception):
    def __init__(self, msg, status=400):
        super().__init__(msg)
        self.status = status


def need(cond, msg, status=400):
    if not cond:
        raise ProtocolError(msg, status)


def parse_multipart(body, ctype):
    m = re.match(r'multipart/form-data; boundary=(.+)$', ctype or '')
    need(m, 'not multipart/form-data: %r' % ctype)
    sep = b'\r\n--' + m.group(1).strip('"').encode()
    chunks = (b'\r\n' + body).split(sep)
    need(chunks[0] == b'' and chunks[-1].startswith(b'--'), 'multipart body not framed by its boundary')
    parts = []
    for chunk in chunks[1:-1]:
        need(chunk.startswith(b'\r\n'), 'a part does not start on a new line')
        head, _, data = chunk[2:].partition(b'\r\n\r\n')
        headers = {}
        for line in head.decode().split('\r\n'):
            k, _, v = line.partition(':')
            headers[k.strip().lower()] = v.strip()
        disp = headers.get('content-disposition', '')
        name = re.search(r'\bname="([^"]*)"', disp)
        filename = re.search(r'\bfilename="([^"]*)"', disp)
        need(name, 'a part has no name')
        parts.append({'name': name.group(1), 'filename': filename and filename.group(1),
                      'headers': headers, 'data': data})
    return parts


def subdir_of(data):
    """A .tar.bz2 package's info/index.json subdir, as prefix.dev reads it."""
    with tarfile.open(fileobj=io.BytesIO(data), mode='r:bz2') as tar:
        return json.load(tar.extractfile('info/index.json'))['subdir']


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def answer(self, status, obj=None, error=None):
        body = b'' if obj is None else json.dumps(obj).encode()
        entry = {'method': self.command, 'path': self.path, 'status': status}
        if error:
            entry['error'] = error
        with open(LOG_FILE, 'a') as f:
            f.write(json.dumps(entry) + '\n')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        need('chunked' not in self.headers.get('Transfer-Encoding', ''), 'chunked body (no Content-Length)')
        return self.rfile.read(int(self.headers.get('Content-Length', '0')))

    def json_body(self):
        need(self.headers.get('Content-Type') == 'application/json', 'API body not application/json')
        return json.loads(self.body())

    def handle_any(self):
        try:
            url = urllib.parse.urlsplit(self.path)
            parts = [urllib.parse.unquote(p) for p in url.path.lstrip('/').split('/')]
            if parts[0] == 's3':
                return self.s3(parts)
            if parts[:3] == ['api', 'v1', 'upload'] or (len(parts) == 3 and parts[2] == 'repodata.json'):
                return self.prefix(parts, urllib.parse.parse_qs(url.query))
            return self.anaconda(parts)
        except ProtocolError as e:
            self.answer(e.status, {'error': str(e)}, str(e))
        except Exception as e:  # a bug here, or a request nothing here expects
            self.answer(400, {'error': repr(e)}, repr(e))

    do_GET = do_POST = do_DELETE = do_PUT = do_HEAD = do_PATCH = handle_any

    # anaconda.org
    def anaconda(self, parts):
        auth = self.headers.get('Authorization')
        # The server's own words quote the token it got: the client must mask them.
        need(auth == 'token ' + TOKEN, 'bad token %s' % auth, 401)
        need(self.headers.get('x-binstar-api-version'), 'no x-binstar-api-version')
        need(self.headers.get('Accept') == 'application/json', 'no Accept: application/json')
        kind, key = parts[0], tuple(parts[1:])
        m = self.command
        if kind == 'package' and len(key) == 2:
            if m == 'GET':
                return self.answer(200, packages[key]) if key in packages else self.answer(404, {'error': 'no package'})
            need(m == 'POST' and key not in packages, 'package POST twice or %s' % m)
            p = self.json_body()
            attrs = p.get('public_attrs', {})
            need(p.get('public') is True and p.get('publish') is False, 'package: public/publish')
            need(attrs.get('name') == key[1] and attrs.get('package_types') == ['conda'], 'package: public_attrs')
            need(isinstance(attrs.get('license'), dict) and 'summary' in attrs, 'package: license/summary')
            packages[key] = p
            return self.answer(200, {'name': key[1]})
        if kind == 'release' and len(key) == 3:
            need(key[:2] in packages, 'release before its package')
            if m == 'GET':
                return self.answer(200, releases[key]) if key in releases else self.answer(404, {'error': 'no release'})
            need(m == 'POST' and key not in releases, 'release POST twice or %s' % m)
            p = self.json_body()
            need(p.get('requirements') == [] and 'announce' in p and p.get('version') == key[2], 'release: body')
            releases[key] = p
            return self.answer(200, {'version': key[2]})
        if kind in ('dist', 'stage', 'commit') and len(key) == 5:
            return getattr(self, kind)(key[:3], key[3] + '/' + key[4], key)
        raise ProtocolError('unexpected %s %s' % (m, self.path))

    def dist(self, rel, basename, key):
        if self.command == 'GET':
            return self.answer(200, dists[key]) if key in dists else self.answer(404, {'error': 'no file'})
        need(self.command == 'DELETE' and key in dists, 'DELETE of no file or %s' % self.command)
        del dists[key]
        return self.answer(200, {})

    def stage(self, rel, basename, key):
        need(self.command == 'POST', 'stage not POST')
        need(rel in releases, 'stage before its release')
        p = self.json_body()
        need(p.get('distribution_type') == 'conda', 'stage: distribution_type')
        attrs = p.get('attrs', {})
        need(attrs.get('subdir') == key[3] and attrs.get('name') == key[1] and attrs.get('version') == key[2],
             'stage: attrs are not the index.json')
        need('target-triplet' in attrs and 'has_prefix' in attrs, 'stage: attrs lack what anaconda-client adds')
        need(isinstance(p.get('channels'), list) and p['channels'], 'stage: channels')
        need(re.fullmatch('[0-9a-f]{64}', p.get('sha256', '')), 'stage: sha256')
        need(isinstance(p.get('dependencies', {}).get('depends'), list), 'stage: dependencies')
        if key in dists:
            return self.answer(409, {'error': 'file exists'})
        dist_id = 'd%d' % (len(staged) + 1)
        port = self.server.server_address[1]
        form = {'key': 'uploads/' + dist_id, 'acl': 'private', 'success_action_status': '201',
                'Content-Type': 'application/octet-stream', 'policy': 'cG9saWN5', 'signature': 'c2ln'}
        staged[dist_id] = {'key': key, 'basename': basename, 'form': form, 'stage': p, 'stored': None}
        return self.answer(200, {'post_url': 'http://127.0.0.1:%d/s3/%s' % (port, dist_id), 'form_data': form,
                                 'dist_id': dist_id})

    def s3(self, parts):
        need(self.command == 'POST' and len(parts) == 2 and parts[1] in staged, 'S3: not a staged POST')
        need('Authorization' not in self.headers, 'S3: the anaconda token went to the storage')
        st = staged[parts[1]]
        fields = parse_multipart(self.body(), self.headers.get('Content-Type'))
        names = [f['name'] for f in fields]
        need(names == list(st['form']) + ['Content-Length', 'Content-MD5', 'file'], 'S3: field order %s' % names)
        for f in fields[:-3]:
            need(f['data'].decode() == st['form'][f['name']], 'S3: field %s changed' % f['name'])
        data = fields[-1]['data']
        need(fields[-1]['filename'] == st['basename'], 'S3: file part filename %r' % fields[-1]['filename'])
        need(fields[-3]['data'].decode() == str(len(data)), 'S3: Content-Length')
        need(fields[-2]['data'].decode() == base64.b64encode(hashlib.md5(data).digest()).decode(), 'S3: Content-MD5')
        need(hashlib.sha256(data).hexdigest() == st['stage']['sha256'], 'S3: bytes are not what was staged')
        st['stored'] = data
        return self.answer(201)

    def commit(self, rel, basename, key):
        need(self.command == 'POST', 'commit not POST')
        p = self.json_body()
        st = staged.get(p.get('dist_id'))
        need(st and st['key'] == key and st['stored'] is not None, 'commit: no stored upload for %s' % p)
        data = st['stored']
        dists[key] = {'basename': basename, 'sha256': hashlib.sha256(data).hexdigest(),
                      'md5': hashlib.md5(data).hexdigest(), 'size': len(data), 'labels': st['stage']['channels']}
        return self.answer(200, {'url': 'https://anaconda.org/%s/%s' % key[:2]})

    # prefix.dev
    def prefix(self, parts, query):
        auth = self.headers.get('Authorization')
        need(auth == 'Bearer ' + TOKEN, 'bad key %s' % auth, 401)
        if self.command == 'GET':
            files = prefix.get((parts[0], parts[1]))
            if files is None or parts[0] == 'lagging':
                return self.answer(404, {'error': 'no such subdir'})
            recs = {f: {'sha256': s} for f, s in files.items()}
            return self.answer(200, {'packages': {k: v for k, v in recs.items() if k.endswith('.tar.bz2')},
                                     'packages.conda': {k: v for k, v in recs.items() if k.endswith('.conda')}})
        need(self.command == 'POST' and len(parts) == 4, 'prefix: not a POST to /api/v1/upload/CHANNEL')
        fields = parse_multipart(self.body(), self.headers.get('Content-Type'))
        need([f['name'] for f in fields] == ['file'], 'prefix: parts %s' % [f['name'] for f in fields])
        f = fields[0]
        h, data = f['headers'], f['data']
        need(h.get('content-type') == 'application/octet-stream', 'prefix: part Content-Type')
        need(h.get('content-length') == str(len(data)), 'prefix: part Content-Length')
        need(h.get('x-file-name') == f['filename'], 'prefix: X-File-Name')
        need(h.get('x-file-sha256') == hashlib.sha256(data).hexdigest(), 'prefix: X-File-SHA256')
        subdir = subdir_of(data)
        files = prefix.setdefault((parts[3], subdir), {})
        if f['filename'] in files and query.get('force') != ['true']:
            return self.answer(409, {'detail': 'package already exists'})
        files[f['filename']] = hashlib.sha256(data).hexdigest()
        return self.answer(200, {})


if __name__ == '__main__':
    server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
    with open(PORT_FILE + '.tmp', 'w') as f:
        f.write(str(server.server_address[1]))
    os.rename(PORT_FILE + '.tmp', PORT_FILE)
    server.serve_forever()
