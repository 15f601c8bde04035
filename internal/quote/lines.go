package quote

import "strings"

// Lines are the statement as a person reads it, one per line, never folded:
// a comment naming where it runs and its note (-- for SQL, # for the shell),
// then the statement itself; a withheld statement is a comment saying why.
// An alternative (Instead) says when to choose it and is itself commented
// out, so that a pasted block runs the steps and never their alternatives.
func (s Statement) Lines() []string {
	c := "-- "
	if s.Kind == ShellKind {
		c = "# "
	}
	var head []string
	if s.Instead != "" {
		head = append(head, "instead, "+s.Instead+" (remove the comment mark to run it)")
	}
	if s.On != "" {
		head = append(head, "on the "+s.On)
	}
	if s.Note != "" {
		head = append(head, s.Note)
	}
	var out []string
	if len(head) > 0 {
		out = append(out, c+strings.Join(head, "; "))
	}
	if s.Withheld != "" {
		return append(out, c+"(not printed: "+s.Withheld+")")
	}
	if s.Instead != "" {
		return append(out, c+s.Text)
	}
	return append(out, s.Text)
}

// Fence is the Markdown fence for a code block holding lines: three backticks,
// or one more than the longest run of backticks in them.
func Fence(lines []string) string {
	return strings.Repeat("`", max(3, LongestBacktickRun(lines...)+1))
}

// LongestBacktickRun is the longest run of backticks in any of lines: a
// Markdown fence or code span around them must be longer.
func LongestBacktickRun(lines ...string) int {
	longest := 0
	for _, l := range lines {
		run := 0
		for _, r := range l {
			if r == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	return longest
}

// Block is a list of statements as Markdown: a fenced block per language.
func Block(sts []Statement) string {
	var b strings.Builder
	for i := 0; i < len(sts); {
		j := i
		var lines []string
		for ; j < len(sts) && sts[j].Kind == sts[i].Kind; j++ {
			lines = append(lines, sts[j].Lines()...)
		}
		lang := "sql"
		if sts[i].Kind == ShellKind {
			lang = "sh"
		}
		f := Fence(lines)
		b.WriteString(f + lang + "\n" + strings.Join(lines, "\n") + "\n" + f + "\n")
		i = j
	}
	return b.String()
}
