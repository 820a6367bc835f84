package e2b

import (
	"strings"
	"testing"
)

func TestValidateTemplateCPUAndMemory(t *testing.T) {
	for n, ok := range map[int32]bool{1: true, 2: true, 8: true, 32: true, 0: false, 3: false, 7: false, 34: false, 64: false} {
		if err := ValidateTemplateCPU(n); (err == nil) != ok {
			t.Errorf("ValidateTemplateCPU(%d) = %v; want ok %v", n, err, ok)
		}
	}
	for mb, ok := range map[int32]bool{128: true, 512: true, 1026: true, 65536: true, 127: false, 129: false, 1023: false, 0: false} {
		if err := ValidateTemplateMemory(mb); (err == nil) != ok {
			t.Errorf("ValidateTemplateMemory(%d) = %v; want ok %v", mb, err, ok)
		}
	}
}

func TestValidateImageRef(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	for ref, ok := range map[string]bool{
		"ubuntu": true, "python:3.12": true, "ubuntu:22.04": true, "e2bdev/base": true, "ghcr.io/acme/app:1.2": true,
		"localhost:5000/x/y:latest": true, "registry.example.com:443/a__b/c-d.e:v1_2": true, "node@" + digest: true,
		"node:20@" + digest: true, "123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:prod": true, "[::1]:5000/app": true,
		"Ubuntu": false, "ubuntu:": false, ":latest": false, "ubuntu latest": false, "ubuntu:22.04:x": false,
		"https://ghcr.io/acme/app": false, "acme//app": false, "-app": false, "app-": false, "ubuntu@sha256:short": false,
		"ubuntu:" + strings.Repeat("t", 129): false, strings.Repeat("a", 256): false,
	} {
		if err := ValidateImageRef(ref); (err == nil) != ok {
			t.Errorf("ValidateImageRef(%q) = %v; want ok %v", ref, err, ok)
		}
	}
}

func TestValidateWorkdir(t *testing.T) {
	for dir, ok := range map[string]bool{"/": true, "/home/user/app": true, "app": false, "./app": false, "~/app": false, "../x": false} {
		if err := ValidateWorkdir(dir); (err == nil) != ok {
			t.Errorf("ValidateWorkdir(%q) = %v; want ok %v", dir, err, ok)
		}
	}
}
