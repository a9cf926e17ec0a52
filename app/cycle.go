// Colour cycling (the C key, View > Colour Cycling): the palette offset turned with time, at
// cycleRate turns a second, by colouring the view's kept data anew. Nothing is computed: a
// step is taken only when the render worker would answer it with a recolour
// (preview.Worker.Recolourable), and the time while it would not (a view still being
// computed, one whose data is not kept) is skipped, so the colours never jump.

package app

import (
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/colour"
)

const (
	// defaultCycleRate is colour cycling's speed: palette turns a second.
	defaultCycleRate = 0.1
	// cycleEvery is the time between two steps of colour cycling: 25 recolours a second at
	// most (a recolour that takes longer makes the steps fewer, each one longer: the
	// worker answers the latest).
	cycleEvery = 40 * time.Millisecond
)

// colourCycle turns the view's palette offset with time. Its state is the UI goroutine's.
type colourCycle struct {
	w    *Window
	item *fyne.MenuItem // View > Colour Cycling, checked while on
	rate float64        // turns a second
	now  func() time.Time
	on   bool
	last time.Time     // the time of the last step (taken or skipped)
	stop chan struct{} // closed to stop the ticker of the cycling on
}

func newColourCycle(w *Window) *colourCycle {
	c := &colourCycle{w: w, rate: defaultCycleRate, now: time.Now}
	c.item = fyne.NewMenuItem("Colour Cycling", c.toggle)
	c.item.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyC}
	return c
}

// toggle starts or stops colour cycling (the C key, View > Colour Cycling).
func (c *colourCycle) toggle() {
	c.on = !c.on
	c.item.Checked = c.on
	c.w.rebuildMenu()
	if !c.on {
		close(c.stop)
		c.w.setMessage("colour cycling stopped")
		return
	}
	c.last = c.now()
	c.stop = make(chan struct{})
	go c.tick(c.stop)
	c.w.setMessage("colour cycling: the palette turns 0.1 times a second (C stops it)")
}

// tick asks the UI goroutine for a step every cycleEvery until stop is closed or the window
// closes.
func (c *colourCycle) tick(stop chan struct{}) {
	t := time.NewTicker(cycleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-c.w.closing:
			return
		case <-t.C:
			c.w.uiDo(c.step)
		}
	}
}

// step turns the offset by the time since the last step, when the view's data can be
// coloured anew; else that time is skipped.
func (c *colourCycle) step() {
	if !c.on {
		return
	}
	now := c.now()
	dt := now.Sub(c.last).Seconds()
	c.last = now
	l := c.w.Location()
	pw, ph := c.w.view.pixelSize()
	if dt <= 0 || pw < 1 || ph < 1 || !c.w.worker.Recolourable(l, pw, ph) {
		return
	}
	o := l.Color.Offset + c.rate*dt
	o -= math.Floor(o) // only the offset's fraction matters: kept within the slider's 0 to 1
	// Six decimals, so that the location's text (copied, bookmarked, written in an export)
	// reads 0.058504, not 0.05850438499999999; a step is thousands of times larger.
	o = math.Round(o*1e6) / 1e6
	if o == 1 {
		o = 0
	}
	c.w.colorChanged(false, func(col *colour.Coloring) { col.Offset = o })
}
