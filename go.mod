module github.com/lockkv/lockkv

go 1.26.8

require github.com/yuin/gopher-lua v1.1.2 // indirect
