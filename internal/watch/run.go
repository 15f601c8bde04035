package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/safefile"
	"github.com/lagscope/lagscope/internal/sample"
)

// Options of one watch.
type Options struct {
	// Monitor is the pair, validated (OnTick is set by Run).
	Monitor monitor.Options
	// Out and In are the terminal (or where the plain lines go).
	Out io.Writer
	In  io.Reader
	// Terminal draws the live screen; false prints Lines after each step.
	Terminal bool
	// SaveDir is where 's' writes the window's samples ("" = current dir).
	SaveDir string
}

// ErrNeverReached is Run's error when no step worked within the first
// window: the pair is unreachable or not what was asked for.
var ErrNeverReached = errors.New("no step worked")

// giveUp watches the steps of the first window: Run gives up when none of
// them worked by its end, with the last step's reason.
type giveUp struct {
	start   time.Time
	window  time.Duration
	reached bool
	err     error
}

// see notes u and says whether to give up.
func (g *giveUp) see(u monitor.Update) bool {
	if u.Err == nil {
		g.reached = true
	}
	if !g.reached && u.At.Sub(g.start) >= g.window {
		g.err = fmt.Errorf("%w within the first window (%s), giving up: %v", ErrNeverReached, g.window, u.Err)
		return true
	}
	return false
}

// Run watches until ctx ends or, on a terminal, the user quits; it gives
// up with ErrNeverReached when no step worked in the first window.
func Run(ctx context.Context, o Options) error {
	st := NewState(o.Monitor.Pair)
	mo := o.Monitor
	g := &giveUp{start: time.Now(), window: mo.Window}
	if !o.Terminal {
		mctx, cancel := context.WithCancel(ctx)
		defer cancel()
		monitor.Run(mctx, mo, func(u monitor.Update) {
			st.Update(u)
			for _, l := range Lines(st) {
				fmt.Fprintln(o.Out, l)
			}
			if g.see(u) {
				cancel()
			}
		})
		return g.err
	}
	m := &model{state: st, view: View{Width: 100, Now: time.Now(), Window: mo.Window, Step: mo.Step},
		save: func(r *sample.Recording) (string, error) { return save(o.SaveDir, mo.Pair, r) }}
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen(), tea.WithOutput(o.Out), tea.WithInput(o.In))
	mctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	mo.OnTick = func(t sample.Tick) { p.Send(tickMsg(t)) }
	wg.Add(1)
	go func() {
		defer wg.Done()
		monitor.Run(mctx, mo, func(u monitor.Update) {
			p.Send(updateMsg(u))
			if g.see(u) {
				p.Quit()
			}
		})
	}()
	_, err := p.Run()
	cancel()
	wg.Wait()
	if g.err != nil {
		return g.err
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// save writes a recording for 'lagscope diagnose --from-samples'.
func save(dir, pair string, r *sample.Recording) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	// 0600, created with O_EXCL under a name with a random part: nobody
	// can plant a file or symlink under it ahead of the save.
	return safefile.WriteNew(dir, fmt.Sprintf("lagscope-watch-%s-%s-", pair, time.Now().Format("20060102-150405")), ".json", b)
}
