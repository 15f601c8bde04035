package reproduce

import (
	"context"
	"errors"
)

var errNotYet = errors.New("this experiment is being written; see issue 4")

func runBottleneck(ctx context.Context, o Options) (*Table, error) { return nil, errNotYet }
func runCPUCost(ctx context.Context, o Options) (*Table, error)    { return nil, errNotYet }
func runReplay(ctx context.Context, o Options) (*Table, error)     { return nil, errNotYet }
