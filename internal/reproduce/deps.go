package reproduce

// pglogrepl reads the logical replication stream of the decode-to-/dev/null
// case of cpu-cost (decode.go).
import _ "github.com/jackc/pglogrepl"
