// Package socks5test is a SOCKS5 server for tests (RFC 1928 CONNECT, with the username and
// password method of RFC 1929): it relays each connection to its destination and records the
// logins and destinations it saw, so a test can prove traffic went through it.
package socks5test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
)

// Server is a running SOCKS5 server on 127.0.0.1.
type Server struct {
	ln                 net.Listener
	username, password string

	mu           sync.Mutex
	logins       []string // "user:password" of each accepted login
	destinations []string // host:port of each CONNECT
}

// Start serves on a random local port. With a username, every client must log in with it and
// password; without, no authentication is asked.
func Start(username, password string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, username: username, password: password}
	go s.accept()
	return s, nil
}

// Address is host:port of the server.
func (s *Server) Address() string { return s.ln.Addr().String() }

// Close stops accepting connections.
func (s *Server) Close() error { return s.ln.Close() }

// Logins returns the accepted logins ("user:password").
func (s *Server) Logins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logins...)
}

// Destinations returns the host:port of every CONNECT, in order.
func (s *Server) Destinations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.destinations...)
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			if err := s.serve(c); err != nil {
				_ = c.Close()
			}
		}()
	}
}

func (s *Server) serve(c net.Conn) error {
	// Greeting: VER NMETHODS METHODS...
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(c, hdr); err != nil || hdr[0] != 5 {
		return errors.New("not SOCKS5")
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(c, methods); err != nil {
		return err
	}
	want := byte(0x00)
	if s.username != "" {
		want = 0x02
	}
	if !contains(methods, want) {
		_, _ = c.Write([]byte{5, 0xff})
		return errors.New("no acceptable method")
	}
	if _, err := c.Write([]byte{5, want}); err != nil {
		return err
	}
	if want == 0x02 && !s.login(c) {
		return errors.New("bad credentials")
	}
	dest, err := readRequest(c)
	if err != nil {
		return err
	}
	up, err := net.Dial("tcp", dest)
	if err != nil {
		_, _ = c.Write([]byte{5, 4, 0, 1, 0, 0, 0, 0, 0, 0}) // host unreachable
		return err
	}
	s.mu.Lock()
	s.destinations = append(s.destinations, dest)
	s.mu.Unlock()
	if _, err := c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0}); err != nil {
		_ = up.Close()
		return err
	}
	go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
	go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	return nil
}

// login reads an RFC 1929 request and answers it.
func (s *Server) login(c net.Conn) bool {
	read := func() (string, bool) {
		n := make([]byte, 1)
		if _, err := io.ReadFull(c, n); err != nil {
			return "", false
		}
		b := make([]byte, n[0])
		_, err := io.ReadFull(c, b)
		return string(b), err == nil
	}
	ver := make([]byte, 1)
	if _, err := io.ReadFull(c, ver); err != nil || ver[0] != 1 {
		return false
	}
	user, ok1 := read()
	pass, ok2 := read()
	s.mu.Lock()
	good := ok1 && ok2 && user == s.username && pass == s.password
	if good {
		s.logins = append(s.logins, user+":"+pass)
	}
	s.mu.Unlock()
	status := byte(1)
	if good {
		status = 0
	}
	_, _ = c.Write([]byte{1, status})
	return good
}

// readRequest reads a CONNECT request and returns its destination.
func readRequest(c net.Conn) (string, error) {
	h := make([]byte, 4)
	if _, err := io.ReadFull(c, h); err != nil {
		return "", err
	}
	if h[0] != 5 || h[1] != 1 {
		return "", errors.New("only CONNECT is served")
	}
	var host string
	switch h[3] {
	case 1:
		b := make([]byte, 4)
		if _, err := io.ReadFull(c, b); err != nil {
			return "", err
		}
		host = net.IP(b).String()
	case 4:
		b := make([]byte, 16)
		if _, err := io.ReadFull(c, b); err != nil {
			return "", err
		}
		host = net.IP(b).String()
	case 3:
		n := make([]byte, 1)
		if _, err := io.ReadFull(c, n); err != nil {
			return "", err
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(c, b); err != nil {
			return "", err
		}
		host = string(b)
	default:
		return "", errors.New("unknown address type")
	}
	p := make([]byte, 2)
	if _, err := io.ReadFull(c, p); err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(p)))), nil
}

func contains(b []byte, v byte) bool {
	for _, x := range b {
		if x == v {
			return true
		}
	}
	return false
}
