// Command flood writes phase messages to $JOBTRACE_SOCKET as fast as it can,
// without waiting for replies, for the measurements in docs/performance.md.
// It is not part of jobtrace.
//
//	flood pairs N [NAMELEN]   N begin/end pairs of one phase name
//	flood nest N [NAMELEN]    N begins, each inside the last, then their ends
//
// Names are NAMELEN bytes long (at least 12; default: "step" for pairs, 16
// bytes for nest). At the end it sends one message with "ack":true and
// waits for its reply, which comes once jobtrace has handled every message
// before it, then prints the messages sent, the time and the rate on stderr.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: flood pairs|nest N [NAMELEN]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(2)
	}
	nameLen := 0
	if len(os.Args) > 3 {
		if nameLen, err = strconv.Atoi(os.Args[3]); err != nil || nameLen < 12 {
			fmt.Fprintln(os.Stderr, "flood: NAMELEN must be a number, at least 12")
			os.Exit(2)
		}
	}
	if err := run(os.Args[1], n, nameLen); err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(1)
	}
}

func run(mode string, n, nameLen int) error {
	c, err := net.Dial("unix", os.Getenv("JOBTRACE_SOCKET"))
	if err != nil {
		return err
	}
	defer c.Close()
	w := bufio.NewWriterSize(c, 64<<10)
	start := time.Now()
	msgs := 0
	switch mode {
	case "pairs":
		name := "step"
		if nameLen > 0 {
			name = strings.Repeat("x", nameLen)
		}
		for range n {
			fmt.Fprintf(w, `{"v":1,"type":"begin","name":%q,"attrs":{"k":"v"}}`+"\n", name)
			fmt.Fprintf(w, `{"v":1,"type":"end","name":%q}`+"\n", name)
			msgs += 2
		}
	case "nest":
		pad := strings.Repeat("x", max(nameLen, 16)-10)
		for i := range n {
			fmt.Fprintf(w, `{"v":1,"type":"begin","name":"%s%010d"}`+"\n", pad, i)
			msgs++
		}
		for i := n - 1; i >= 0; i-- {
			fmt.Fprintf(w, `{"v":1,"type":"end","name":"%s%010d"}`+"\n", pad, i)
			msgs++
		}
	default:
		return fmt.Errorf("unknown mode %q: want pairs or nest", mode)
	}
	w.WriteString(`{"v":1,"type":"event","name":"done","ack":true}` + "\n")
	if err := w.Flush(); err != nil {
		return err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Fprintf(os.Stderr, "flood: %d messages in %v: %.0f messages/s; reply %s", msgs, d.Round(time.Millisecond), float64(msgs)/d.Seconds(), reply)
	return nil
}
