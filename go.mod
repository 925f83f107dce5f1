module github.com/lockkv/lockkv

go 1.26.8
