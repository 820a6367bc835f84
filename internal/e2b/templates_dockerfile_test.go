package e2b

import (
	"errors"
	"strings"
	"testing"
)

func stepLines(steps []BuildStep) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Type + " " + strings.Join(s.Args, "|")
	}
	return out
}

func TestParseDockerfileConvertsLikeTheSDK(t *testing.T) {
	df := `# syntax=docker/dockerfile:1
ARG PY=3.12
FROM python:${PY}-slim
ARG VERSION=1.0
ENV APP_HOME=/srv/app PORT=8000
WORKDIR $APP_HOME
COPY --chown=user:user requirements.txt ./
COPY --chmod=0755 scripts/ bin/ /srv/tools/
RUN pip install -r requirements.txt && \
    echo done
RUN ["python", "-c", "print('exec form')"]
EXPOSE 8000
USER user
ENTRYPOINT ["python", "-m"]
CMD ["http.server", "8000"]
`
	got, err := ParseDockerfile(df)
	if err != nil {
		t.Fatalf("ParseDockerfile: %v", err)
	}
	if got.FromImage != "python:3.12-slim" {
		t.Errorf("image %q", got.FromImage)
	}
	want := []string{
		"USER root",
		"WORKDIR /",
		"ENV VERSION|1.0",
		"ENV APP_HOME|/srv/app|PORT|8000",
		"WORKDIR /srv/app",
		"COPY requirements.txt|./|user:user|",
		"COPY scripts/|/srv/tools/||0755",
		"COPY bin/|/srv/tools/||0755",
		"RUN pip install -r requirements.txt &&     echo done",
		`RUN python -c 'print('"'"'exec form'"'"')'`,
		"USER user",
	}
	if g := stepLines(got.Steps); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if got.StartCmd != "python -m http.server 8000" || got.ReadyCmd != "sleep 20" {
		t.Errorf("start %q ready %q", got.StartCmd, got.ReadyCmd)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "line 12: EXPOSE") {
		t.Errorf("warnings %q", got.Warnings)
	}
}

func TestParseDockerfileDefaultsUserAndWorkdir(t *testing.T) {
	got, err := ParseDockerfile("FROM ubuntu:22.04\nRUN apt-get update\nCMD sleep infinity\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "USER root\nWORKDIR /\nRUN apt-get update\nUSER user\nWORKDIR /home/user"
	if g := strings.Join(stepLines(got.Steps), "\n"); g != want {
		t.Errorf("steps:\n%s\nwant:\n%s", g, want)
	}
	if got.StartCmd != "sleep infinity" {
		t.Errorf("start %q", got.StartCmd)
	}
}

func TestParseDockerfileRefusesWhatE2BCannotBuild(t *testing.T) {
	cases := map[string]struct{ df, want string }{
		"multi-stage":     {"FROM golang AS b\nRUN go build\nFROM debian\nCOPY --from=b /x /x\n", "line 3: multi-stage"},
		"copy from":       {"FROM debian\nCOPY --from=golang:1 /usr/local/go /go\n", "line 2: COPY --from=golang:1"},
		"run mount":       {"FROM debian\nRUN --mount=type=cache,target=/root/.cache pip install x\n", "line 2: RUN --mount"},
		"add url":         {"FROM debian\nADD https://example.com/x.tgz /x\n", "line 2: \"https://example.com/x.tgz\" is a URL"},
		"add archive":     {"FROM debian\nADD vendor.tar.gz /vendor\n", "line 2: ADD vendor.tar.gz would unpack"},
		"healthcheck":     {"FROM debian\nHEALTHCHECK CMD curl -f localhost\n", "line 2: HEALTHCHECK"},
		"shell":           {"FROM debian\nSHELL [\"/bin/sh\", \"-c\"]\n", "line 2: SHELL"},
		"onbuild":         {"FROM debian\nONBUILD RUN x\n", "line 2: ONBUILD"},
		"scratch":         {"FROM scratch\n", "line 1: FROM scratch"},
		"absolute source": {"FROM debian\nCOPY /etc/passwd /x\n", "line 2: source \"/etc/passwd\" is absolute"},
		"escaping source": {"FROM debian\nCOPY ../secret /x\n", "line 2: source \"../secret\" leaves the context"},
		"no from":         {"RUN echo hi\n", "no build stage"},
		"unknown image":   {"FROM $IMAGE\n", "line 1: cannot resolve the image"},
		"heredoc":         {"FROM debian\nRUN <<EOF\necho hi\nEOF\n", "line 2: RUN with a heredoc"},
		"bad chmod":       {"FROM debian\nCOPY --chmod=u+x a /a\n", "line 2: --chmod=u+x"},
		"unknown verb":    {"FROM debian\nFROBNICATE x\n", "unknown instruction"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseDockerfile(c.df)
			var de *DockerfileError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T), want a DockerfileError", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q lacks %q", err, c.want)
			}
		})
	}
}
