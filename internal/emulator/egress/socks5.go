package egress

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// DialSOCKS5 connects to addr (host:port) through the SOCKS5 proxy p (RFC 1928), logging in
// with p's username and password when it has them (RFC 1929). The host is sent as a name, so
// the proxy resolves it, as E2B's egress does for domain-matched flows.
func DialSOCKS5(ctx context.Context, p Proxy, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || len(host) > 255 {
		return nil, fmt.Errorf("socks5: bad destination %q", addr)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", p.Address)
	if err != nil {
		return nil, fmt.Errorf("socks5 proxy %s: %w", p.Address, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(deadline)
	}
	if err := handshake(c, p, host, port); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("socks5 proxy %s: %w", p.Address, err)
	}
	_ = c.SetDeadline(timeZero)
	return c, nil
}

func handshake(c net.Conn, p Proxy, host string, port int) error {
	method := byte(0x00)
	if p.Username != "" {
		method = 0x02
	}
	if _, err := c.Write([]byte{5, 1, method}); err != nil {
		return err
	}
	reply := make([]byte, 2)
	if _, err := io.ReadFull(c, reply); err != nil {
		return err
	}
	if reply[0] != 5 || reply[1] != method {
		return errors.New("the proxy accepts none of the offered methods")
	}
	if method == 0x02 {
		msg := []byte{1, byte(len(p.Username))}
		msg = append(msg, p.Username...)
		msg = append(msg, byte(len(p.Password)))
		msg = append(msg, p.Password...)
		if _, err := c.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, reply); err != nil {
			return err
		}
		if reply[1] != 0 {
			return errors.New("the proxy refused the username and password")
		}
	}
	req := []byte{5, 1, 0, 3, byte(len(host))}
	req = append(req, host...)
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	if _, err := c.Write(req); err != nil {
		return err
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(c, head); err != nil {
		return err
	}
	if head[1] != 0 {
		return fmt.Errorf("the proxy could not connect (reply %d)", head[1])
	}
	var skip int
	switch head[3] {
	case 1:
		skip = 4
	case 4:
		skip = 16
	case 3:
		n := make([]byte, 1)
		if _, err := io.ReadFull(c, n); err != nil {
			return err
		}
		skip = int(n[0])
	}
	_, err := io.ReadFull(c, make([]byte, skip+2))
	return err
}

var timeZero = time.Time{}
