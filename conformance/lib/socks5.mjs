// A SOCKS5 server (RFC 1928 CONNECT with the RFC 1929 login) that records the logins and
// destinations it served, so a scenario can prove a sandbox's egress went through it.
import { connect, createServer } from 'node:net';

export function startSocks5(username, password) {
  const seen = { logins: [], destinations: [] };
  const server = createServer((c) => {
    let buf = Buffer.alloc(0);
    let stage = 'greeting';
    const take = (n) => {
      if (buf.length < n) return null;
      const out = buf.subarray(0, n);
      buf = buf.subarray(n);
      return out;
    };
    c.on('error', () => {});
    c.on('data', function onData(chunk) {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (stage === 'greeting') {
          if (buf.length < 2 || buf.length < 2 + buf[1]) return;
          const n = buf[1];
          const methods = take(2 + n).subarray(2);
          if (!methods.includes(2)) return c.end(Buffer.from([5, 0xff]));
          c.write(Buffer.from([5, 2]));
          stage = 'login';
        } else if (stage === 'login') {
          if (buf.length < 2) return;
          const ul = buf[1];
          if (buf.length < 3 + ul) return;
          const pl = buf[2 + ul];
          if (buf.length < 3 + ul + pl) return;
          const msg = take(3 + ul + pl);
          const user = msg.subarray(2, 2 + ul).toString();
          const pass = msg.subarray(3 + ul).toString();
          if (user !== username || pass !== password) return c.end(Buffer.from([1, 1]));
          seen.logins.push(`${user}:${pass}`);
          c.write(Buffer.from([1, 0]));
          stage = 'request';
        } else if (stage === 'request') {
          if (buf.length < 5) return;
          let host;
          let len;
          if (buf[3] === 3) {
            len = 5 + buf[4] + 2;
            if (buf.length < len) return;
            host = buf.subarray(5, 5 + buf[4]).toString();
          } else if (buf[3] === 1) {
            len = 4 + 4 + 2;
            if (buf.length < len) return;
            host = [...buf.subarray(4, 8)].join('.');
          } else {
            return c.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
          }
          const req = take(len);
          const port = req.readUInt16BE(len - 2);
          seen.destinations.push(`${host}:${port}`);
          c.removeListener('data', onData);
          const up = connect(port, host, () => {
            c.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            if (buf.length) up.write(buf);
            c.pipe(up);
            up.pipe(c);
          });
          up.on('error', () => c.destroy());
          return;
        }
      }
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => ok({ server, seen, address: `127.0.0.1:${server.address().port}` })),
  );
}
