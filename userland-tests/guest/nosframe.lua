-- SPDX-License-Identifier: GPL-2.0
--
-- Workload of nosframe.sh: Lua (built with .sframe) spending most of its
-- time in Debian's libc and libm (built without it), with libc functions
-- called from many places of the interpreter.
--
--   lua nosframe.lua [SECONDS]
--
-- Runs rounds until SECONDS of CPU time (os.clock(), default 2.5) have
-- gone, then prints the number of rounds and a checksum.

local secs = tonumber(arg and arg[1]) or 2.5
local chunk = string.rep("abcdefghij", 400)		-- 4000 bytes
local pre = string.rep("k", 2000)
local acc, rounds = 0, 0

local function round()
	-- long strings concatenated: memcpy/memmove, malloc, free
	local s = ""
	for i = 1, 100 do s = s .. chunk end
	acc = acc + #s
	-- string.rep with a separator, table.concat: memcpy, realloc
	local t = {}
	for i = 1, 100 do t[i] = string.rep(chunk, 3, ",") end
	acc = acc + #table.concat(t, ";")
	-- plain find: memchr, memcmp
	for i = 1, 2 do acc = acc + (string.find(s, "jx", 1, true) or 0) end
	-- strings with a long common prefix sorted with a Lua comparator:
	-- strcoll (strcmp) under table.sort's recursion and a Lua call
	local keys = {}
	for i = 1, 400 do keys[i] = pre .. ((i * 7919) % 1000) end
	table.sort(keys, function(a, b) return a < b end)
	-- numbers to strings: snprintf (vfprintf, printf_fp, mpn)
	local f = {}
	for i = 1, 200 do f[i] = string.format("%.6f %d %g", i / 7, i, i * 1.5) end
	acc = acc + #table.concat(f)
	-- libm
	local x = 0
	for i = 1, 2000 do
		x = x + math.sin(i) * math.exp(-i / 1000) + math.fmod(i, 7.5) ^ 1.5
	end
	acc = acc + math.floor(x)
	-- many small tables and short strings: malloc, free, realloc
	local m = {}
	for i = 1, 2000 do m[i] = { i, tostring(i) .. "x" } end
	acc = acc + #m
end

repeat
	round()
	rounds = rounds + 1
until os.clock() >= secs
print(rounds .. " rounds, checksum " .. acc)
