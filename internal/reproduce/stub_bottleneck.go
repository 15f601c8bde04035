package reproduce

import "context"

func runBottleneck(ctx context.Context, o Options) (*Table, error) { return nil, errNotYet }
