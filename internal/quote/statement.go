package quote

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is what reads a statement.
type Kind string

// Kinds.
const (
	SQLKind   Kind = "sql"   // a PostgreSQL server
	ShellKind Kind = "shell" // a POSIX shell (bash or zsh for $'...' words)
)

// Statement is one thing lagscope prints for a person to run: a SQL statement
// or a shell command, on a line of its own, built from values by SQL or
// Command and never by formatting a name into text. Text holds no rune that a
// terminal acts on and no line break.
type Statement struct {
	Kind Kind `json:"kind"`
	// On names the server it runs on ("publisher", "subscriber", "standby";
	// "" when the text around it says).
	On string `json:"on,omitempty"`
	// Text is the statement (SQL ends with ';'). Empty when Withheld.
	Text string `json:"text,omitempty"`
	// Note is said beside it: the lock it takes, what to check first.
	Note string `json:"note,omitempty"`
	// Instead, when set, makes the statement an alternative to the ones
	// before it rather than a step after them, and says when to choose it.
	// It is printed commented out: pasting the block never runs both.
	Instead string `json:"instead,omitempty"`
	// Withheld says why no statement could be printed (a name that is not
	// valid UTF-8, server text that holds unprintable runes).
	Withheld string `json:"withheld,omitempty"`
}

// OnServer returns s to run on server role ("publisher", "subscriber", "standby", "primary").
func (s Statement) OnServer(role string) Statement { s.On = role; return s }

// Or returns s as an alternative to the statements before it, chosen when
// (a condition in words): printed commented out.
func (s Statement) Or(when string) Statement { s.Instead = when; return s }

// WithNote returns s with a note said beside it.
func (s Statement) WithNote(note string) Statement { s.Note = note; return s }

// Name is a schema-qualified object name; Schema "" prints the name alone.
type Name struct{ Schema, Name string }

// Raw is SQL text that lagscope wrote itself (a setting's name and value) or
// that the server printed as SQL (format_type, pg_get_expr): inserted as it is
// when printable, the statement withheld otherwise.
type Raw string

// SQL builds a statement from a template, as PostgreSQL's format() does:
//
//	%I  an identifier: a string, a Name (schema-qualified) or a []string (a list)
//	%L  a literal: a string
//	%d  an integer
//	%s  a Raw fragment
//	%%  a percent sign
//
// Any other verb or argument type is a bug: the statement is withheld and says
// so (a unit test runs every builder). A name that cannot be printed withholds
// the statement.
func SQL(template string, args ...any) Statement {
	text, err := format(template, args)
	if err != nil {
		return Statement{Kind: SQLKind, Withheld: err.Error()}
	}
	return Statement{Kind: SQLKind, Text: text}
}

// format expands template's verbs with args.
func format(template string, args []any) (string, error) {
	var b strings.Builder
	n := 0
	next := func() (any, error) {
		if n >= len(args) {
			return nil, fmt.Errorf("statement template %q: too few arguments", template)
		}
		n++
		return args[n-1], nil
	}
	for i := 0; i < len(template); i++ {
		c := template[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(template) {
			return "", fmt.Errorf("statement template %q ends in %%", template)
		}
		i++
		verb := template[i]
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		a, err := next()
		if err != nil {
			return "", err
		}
		s, err := expand(verb, a)
		if err != nil {
			return "", fmt.Errorf("statement template %q: %w", template, err)
		}
		b.WriteString(s)
	}
	if n != len(args) {
		return "", fmt.Errorf("statement template %q: %d arguments left over", template, len(args)-n)
	}
	if !Printable(b.String()) {
		return "", fmt.Errorf("statement template %q holds an unprintable rune", template)
	}
	return b.String(), nil
}

// errUnprintable withholds a statement whose name no SQL text can name.
var errUnprintable = fmt.Errorf("a name in it is not valid UTF-8: no statement can name it")

// expand prints one argument for one verb.
func expand(verb byte, a any) (string, error) {
	switch verb {
	case 'I':
		switch v := a.(type) {
		case string:
			if s, ok := Ident(v); ok {
				return s, nil
			}
			return "", errUnprintable
		case Name:
			return qualified(v)
		case []string:
			out := make([]string, len(v))
			for i, x := range v {
				s, ok := Ident(x)
				if !ok {
					return "", errUnprintable
				}
				out[i] = s
			}
			return strings.Join(out, ", "), nil
		case []Name:
			out := make([]string, len(v))
			for i, x := range v {
				s, err := qualified(x)
				if err != nil {
					return "", err
				}
				out[i] = s
			}
			return strings.Join(out, ", "), nil
		}
	case 'L':
		if v, ok := a.(string); ok {
			if s, ok := Literal(v); ok {
				return s, nil
			}
			return "", errUnprintable
		}
	case 'd':
		switch v := a.(type) {
		case int:
			return strconv.Itoa(v), nil
		case int32:
			return strconv.FormatInt(int64(v), 10), nil
		case int64:
			return strconv.FormatInt(v, 10), nil
		case uint32:
			return strconv.FormatUint(uint64(v), 10), nil
		case uint64:
			return strconv.FormatUint(v, 10), nil
		}
	case 's':
		if v, ok := a.(Raw); ok {
			if !Printable(string(v)) {
				return "", fmt.Errorf("the server's text for it holds a line break or an unprintable rune: read it from the catalog")
			}
			return string(v), nil
		}
	default:
		return "", fmt.Errorf("unknown verb %%%c", verb)
	}
	return "", fmt.Errorf("%%%c does not take a %T", verb, a)
}

// qualified prints schema.name, each part an identifier.
func qualified(n Name) (string, error) {
	name, ok := Ident(n.Name)
	if !ok {
		return "", errUnprintable
	}
	if n.Schema == "" {
		return name, nil
	}
	schema, ok := Ident(n.Schema)
	if !ok {
		return "", errUnprintable
	}
	return schema + "." + name, nil
}

// Qualified prints schema.name for prose (an object named in a sentence, not
// in a statement): quoted as in SQL, so the reader sees exactly which object.
// A name that is not valid UTF-8 prints with its bytes escaped.
func Qualified(schema, name string) string {
	s, err := qualified(Name{schema, name})
	if err != nil {
		return strconv.QuoteToASCII(schema + "." + name)
	}
	return s
}

// Id prints one name for prose, as Qualified does.
func Id(name string) string { return Qualified("", name) }
