package watch

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lagscope/lagscope/internal/monitor"
	"github.com/lagscope/lagscope/internal/sample"
)

// Messages from the monitor and the clock.
type (
	tickMsg   sample.Tick
	updateMsg monitor.Update
	clockMsg  time.Time
)

// model is the bubbletea program: the State, how to draw it, and the keys.
type model struct {
	state  *State
	view   View
	frozen string // the screen at the moment of pausing
	save   func(*sample.Recording) (string, error)
}

func every() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return clockMsg(t) })
}

func (m *model) Init() tea.Cmd { return every() }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return m, tea.Quit
		case "p", " ":
			m.view.Paused = !m.view.Paused
			m.frozen = ""
			if m.view.Paused {
				m.frozen = Render(m.state, View{Width: m.view.Width, Now: m.view.Now, Window: m.view.Window, Step: m.view.Step})
			}
		case "?", "h":
			m.view.Help = !m.view.Help
		case "s":
			m.view.Message = m.saveWindow()
		}
	case tea.WindowSizeMsg:
		m.view.Width = msg.Width
	case tickMsg:
		m.state.Tick(sample.Tick(msg))
	case updateMsg:
		m.state.Update(monitor.Update(msg))
	case clockMsg:
		m.view.Now = time.Time(msg)
		return m, every()
	}
	return m, nil
}

func (m *model) saveWindow() string {
	if m.state.Window == nil {
		return "nothing to save yet: wait for the first verdict"
	}
	path, err := m.save(m.state.Window)
	if err != nil {
		return "save: " + err.Error()
	}
	return "saved the window's samples to " + path + " (lagscope diagnose --from-samples " + path + ")"
}

func (m *model) View() string {
	if m.view.Paused && m.frozen != "" {
		return m.frozen + bad.Render("PAUSED") + " " + dim.Render("p resume · q quit") + "\n"
	}
	return Render(m.state, m.view)
}
