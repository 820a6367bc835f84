package e2b_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Example shows the client on its own: create a sandbox, upload a file,
// run a command and stream its output, then kill the sandbox.
func Example() {
	ctx := context.Background()
	c, err := e2b.New(e2b.Config{APIKey: os.Getenv("E2B_API_KEY"), Version: "dev"})
	if err != nil {
		panic(err)
	}
	secure := true
	// Safe to retry: a lost answer is settled by the create's own token, never two sandboxes.
	sb, err := c.CreateSandbox(ctx, e2b.CreateSandboxRequest{TemplateID: "base", Timeout: 300, Secure: &secure})
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	defer func() { _ = c.KillSandbox(ctx, sb.SandboxID) }()

	envd := c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken, Domain: sb.Domain})
	if _, err := envd.WriteFile(ctx, "/home/user/hello.txt", strings.NewReader("hello\n"), e2b.WriteOptions{}); err != nil {
		fmt.Println("write:", err)
		return
	}
	stream, err := envd.StartProcess(ctx, e2b.StartProcessRequest{
		Process: e2b.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "cat hello.txt"}},
	})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer func() { _ = stream.Close() }()
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			fmt.Println("stream:", err)
			return
		}
		switch ev.Kind {
		case e2b.EventStdout:
			fmt.Print(string(ev.Data))
		case e2b.EventEnd:
			fmt.Println("exit code", ev.ExitCode)
		}
	}
}
