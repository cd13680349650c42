package protocol

import "bytes"

// AskedForAck reports whether a line that Parse could not read holds
// "ack":true (blanks allowed around the colon) outside a string escape, so
// that a malformed message whose sender waits for a reply still gets one.
// It is a scan, not a parse: a broken line has no structure to trust, and a
// reply to a sender that did not wait for one costs at most a line in its
// socket buffer, while a missing reply costs it its whole timeout.
func AskedForAck(line []byte) bool {
	const key = `"ack"`
	for i := 0; ; {
		k := bytes.Index(line[i:], []byte(key))
		if k < 0 {
			return false
		}
		k += i
		i = k + len(key)
		if k > 0 && line[k-1] == '\\' {
			continue // \"ack\" inside a string
		}
		j := skipBlanks(line, i)
		if j >= len(line) || line[j] != ':' {
			continue
		}
		j = skipBlanks(line, j+1)
		if bytes.HasPrefix(line[j:], []byte("true")) {
			return true
		}
	}
}

func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}
