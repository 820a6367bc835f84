package e2bspec

import (
	"crypto/sha1" //nolint:gosec // git's blob IDs are SHA-1; this checks identity, not security
	"encoding/hex"
	"fmt"
	"testing"
)

// TestCopiesAreVerbatim: every embedded document has the git blob ID NOTICE
// gives for it, that of the file in E2B's repository.
func TestCopiesAreVerbatim(t *testing.T) {
	want := map[string]string{
		NewestControl:       "41845f1d9c2c3ea7d71e437ca5f0c77c87590706",
		RuntimeControl:      "385ce9d9c2af170550947e04518bf04441b5895b",
		RuntimeEnvd:         "935b1d3a23920c0e5b5389f2fb5ca9e42076c7e1",
		SDKControl:          "6ddde58ad77840174566d871b84b3230e296567a",
		SDKEnvd:             "a6c0500090e9018f8125b179b6704d7b5af92f4c",
		SDKVolumeContent:    "a84c396426934c3dcad5be152a88e595004bbe91",
		EnvdProcessProto:    "99376a0e378e0aa2e959dbbf00a73c36d88fadb4",
		EnvdFilesystemProto: "7c4c43174c6f75fa15773c2d7d3cacf72a307a04",
	}
	for name, blob := range want {
		data, err := Read(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := sha1.New() //nolint:gosec // see import
		fmt.Fprintf(h, "blob %d\x00", len(data))
		h.Write(data)
		if got := hex.EncodeToString(h.Sum(nil)); got != blob {
			t.Errorf("%s: blob %s, want %s (the file was changed)", name, got, blob)
		}
	}
}

// TestSetsLoad: every document of every set parses and is a valid OpenAPI document.
func TestSetsLoad(t *testing.T) {
	for _, set := range []Set{Newest, Runtime, SDK} {
		for _, name := range []string{set.Control, set.Envd, set.VolumeContent} {
			if _, err := Load("", name); err != nil {
				t.Errorf("%s set: %v", set.Name, err)
			}
		}
	}
}
