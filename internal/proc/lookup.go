package proc

import "strings"

// Alive reports whether process pid exists and has not exited (a zombie,
// waiting to be reaped, counts as gone).
func (fs FS) Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := fs.proc.Proc(pid)
	if err != nil {
		return false
	}
	st, err := p.Stat()
	return err == nil && st.State != "Z" && st.State != "X"
}

// Cmdline returns process pid's arguments (/proc/<pid>/cmdline); a
// PostgreSQL backend's first one is its process title.
func (fs FS) Cmdline(pid int) ([]string, error) {
	p, err := fs.proc.Proc(pid)
	if err != nil {
		return nil, fs.processErr(pid, "cmdline", err)
	}
	args, err := p.CmdLine()
	if err != nil {
		return nil, fs.processErr(pid, "cmdline", err)
	}
	return args, nil
}

// Executable returns the path of the binary process pid runs
// (/proc/<pid>/exe), "" when it cannot be read (another user's process).
func (fs FS) Executable(pid int) string {
	p, err := fs.proc.Proc(pid)
	if err != nil {
		return ""
	}
	exe, err := p.Executable()
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(exe, " (deleted)")
}
