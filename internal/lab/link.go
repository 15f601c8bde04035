package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lagscope/lagscope/internal/lab/proxy"
	"github.com/lagscope/lagscope/internal/units"
)

// startLink starts a rate-limited unix-socket relay for a server of the
// lab's account to reach upstream through: the socket .s.PGSQL.<port> in a
// new directory dir of the lab directory, both the account's own (0700 and
// 0600, as the servers' sockets are), so no other local user can use the
// link. The link lives as long as the pair (its Close ends it), not as long
// as ctx.
func (p *Pair) startLink(ctx context.Context, dir, upstream string, port int, rate units.ByteRate) (*proxy.Proxy, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make link directory: %w", err)
	}
	listen := filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", port))
	link, err := proxy.Start(context.WithoutCancel(ctx), proxy.Options{Listen: listen, Upstream: upstream, Rate: rate})
	if err != nil {
		return nil, err
	}
	// Socket first, then its directory: until the directory is the
	// account's, no one else can put anything in it.
	for _, path := range []string{listen, dir} {
		if err := p.Lab.Owner.Give(path); err != nil {
			link.Close()
			return nil, err
		}
	}
	return link, nil
}
