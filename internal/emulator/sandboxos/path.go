package sandboxos

// DefaultPath is the PATH envd gives a command (a root shell's PATH).
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
