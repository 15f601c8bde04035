package reproduce

import "context"

func runReplay(ctx context.Context, o Options) (*Table, error) { return nil, errNotYet }
