//go:build !unix

package config

func makeFIFO(string) (string, bool) { return "", false }
