package kstat

//go:generate go run ./internal/mkfixtures -dir testdata
