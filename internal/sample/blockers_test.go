package sample

import "testing"

func TestRedactQuery(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a role's password literal is hidden",
			"ALTER ROLE app PASSWORD 'hunter2'", "ALTER ROLE app PASSWORD '***'"},
		{"the keyword's case does not matter",
			"create role a login encrypted password 'x''y' valid until 'infinity'", "create role a login encrypted password '***' valid until 'infinity'"},
		{"a literal cut at 200 characters is hidden to its end",
			"ALTER USER app WITH PASSWORD 'abcdef", "ALTER USER app WITH PASSWORD '***'"},
		{"an escape string is hidden",
			`ALTER ROLE app PASSWORD E'a\'b' LOGIN`, "ALTER ROLE app PASSWORD '***' LOGIN"},
		{"a dollar-quoted literal is hidden",
			"ALTER ROLE app PASSWORD $q$secret$q$", "ALTER ROLE app PASSWORD '***'"},
		{"a connection string's password is hidden",
			"CREATE SUBSCRIPTION s CONNECTION 'host=p password=secret' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'host=p password=***' PUBLICATION p"},
		{"a connection URI's password is hidden",
			"CREATE SUBSCRIPTION s CONNECTION 'postgres://app:secret@p/db' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'postgres://app:***@p/db' PUBLICATION p"},
		{"a statement without a password is unchanged",
			"UPDATE hot SET k = k + 1 WHERE id = 3", "UPDATE hot SET k = k + 1 WHERE id = 3"},
		{"a column named password is not a literal",
			"SELECT password FROM users", "SELECT password FROM users"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := redactQuery(c.in); got != c.want {
				t.Errorf("redactQuery(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
