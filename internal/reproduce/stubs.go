package reproduce

import "errors"

var errNotYet = errors.New("this experiment is being written; see issue 4")
