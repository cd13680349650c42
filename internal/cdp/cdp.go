// Package cdp drives a headless Chromium through the Chrome DevTools
// Protocol for tests that look at a page as a browser shows it: open a
// file, move the mouse, read the DOM back with a script, take a
// screenshot. It speaks the protocol over the pipe Chromium opens with
// --remote-debugging-pipe (file descriptors 3 and 4, messages ended by a
// NUL byte), so it needs no port, no WebSocket and no library.
//
// The protocol: https://chromedevtools.github.io/devtools-protocol/
//
// A Browser is used by one goroutine; it starts no goroutine of its own.
package cdp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Browser is a running headless Chromium with one page attached.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File // the browser reads commands from it (its fd 3)
	out     *os.File // the browser writes replies and events to it (its fd 4)
	r       *bufio.Reader
	ctx     context.Context
	id      int
	session string
	stderr  strings.Builder
	// Errors are the page's uncaught exceptions and console errors, as
	// the browser reported them.
	Errors []string
	loaded bool
}

// Start starts the Chromium at path, headless, with its profile in
// profileDir and the window width × height, and attaches to its page.
// The browser is killed when ctx is done.
func Start(ctx context.Context, path, profileDir string, width, height int, args ...string) (*Browser, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir=" + profileDir, fmt.Sprintf("--window-size=%d,%d", width, height),
		"--hide-scrollbars", "--no-first-run", "--no-default-browser-check"}, args...)
	b := &Browser{in: inW, out: outR, r: bufio.NewReader(outR), ctx: ctx}
	b.cmd = exec.CommandContext(ctx, path, append(all, "about:blank")...)
	b.cmd.ExtraFiles = []*os.File{inR, outW}
	b.cmd.Stderr = &b.stderr
	b.cmd.WaitDelay = 5 * time.Second
	err = b.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	if err := b.attach(width, height); err != nil {
		b.Close()
		return nil, fmt.Errorf("%w\n%s", err, b.stderr.String())
	}
	return b, nil
}

// attach attaches to the browser's page and enables the domains whose
// events the Browser waits for or records.
func (b *Browser) attach(width, height int) error {
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := b.Call("Target.getTargets", nil, &targets); err != nil {
		return err
	}
	id := ""
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			id = t.TargetID
			break
		}
	}
	if id == "" {
		return errors.New("cdp: the browser has no page")
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call("Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return err
	}
	b.session = att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := b.Call(m, nil, nil); err != nil {
			return err
		}
	}
	return b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

type message struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Call sends one command to the page (to the browser before it is
// attached) and decodes its result into result, when not nil.
func (b *Browser) Call(method string, params, result any) error {
	b.id++
	req := map[string]any{"id": b.id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if b.session != "" {
		req["sessionId"] = b.session
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("cdp: %s: %w", method, err)
	}
	for {
		m, err := b.read()
		if err != nil {
			return fmt.Errorf("cdp: %s: %w", method, err)
		}
		if m.ID != b.id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("cdp: %s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	}
}

// read reads the next message, recording the events the Browser keeps.
func (b *Browser) read() (message, error) {
	if d, ok := b.ctx.Deadline(); ok {
		b.out.SetReadDeadline(d)
	}
	line, err := b.r.ReadBytes(0)
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
		return message{}, err
	}
	switch m.Method {
	case "Page.loadEventFired":
		b.loaded = true
	case "Runtime.exceptionThrown":
		b.Errors = append(b.Errors, "exception: "+string(m.Params))
	case "Runtime.consoleAPICalled":
		var c struct {
			Type string `json:"type"`
		}
		json.Unmarshal(m.Params, &c)
		if c.Type == "error" || c.Type == "assert" {
			b.Errors = append(b.Errors, "console: "+string(m.Params))
		}
	}
	return m, nil
}

// Open loads url in the page and waits for its load event.
func (b *Browser) Open(url string) error {
	b.loaded = false
	if err := b.Call("Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	for !b.loaded {
		if _, err := b.read(); err != nil {
			return fmt.Errorf("cdp: waiting for %s to load: %w", url, err)
		}
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value, which must be JSON, into result.
func (b *Browser) Eval(expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("cdp: %s: %s", expr, r.ExceptionDetails)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(r.Result.Value, result)
}

// MoveMouse moves the mouse to (x, y), in CSS pixels of the viewport, as
// a user's would: the page gets pointer and mouse events.
func (b *Browser) MoveMouse(x, y float64) error {
	return b.Call("Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": x, "y": y}, nil)
}

// Screenshot returns a PNG of the viewport, or of the whole page when
// full is set.
func (b *Browser) Screenshot(full bool) ([]byte, error) {
	params := map[string]any{"format": "png"}
	if full {
		var m struct {
			Size struct {
				Width  float64 `json:"width"`
				Height float64 `json:"height"`
			} `json:"cssContentSize"`
		}
		if err := b.Call("Page.getLayoutMetrics", nil, &m); err != nil {
			return nil, err
		}
		params["captureBeyondViewport"] = true
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": m.Size.Width, "height": m.Size.Height, "scale": 1}
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := b.Call("Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close ends the browser and waits for it.
func (b *Browser) Close() error {
	b.session = ""
	b.Call("Browser.close", nil, nil)
	b.in.Close()
	err := b.cmd.Wait()
	b.out.Close()
	return err
}
