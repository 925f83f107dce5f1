package luaengine

import lua "github.com/yuin/gopher-lua"

func openCjson(L *lua.LState) *lua.LTable    { return L.CreateTable(0, 0) }
func openStruct(L *lua.LState) *lua.LTable   { return L.CreateTable(0, 0) }
func openCmsgpack(L *lua.LState) *lua.LTable { return L.CreateTable(0, 0) }
func openBit(L *lua.LState) *lua.LTable      { return L.CreateTable(0, 0) }
