-- Makes a lock held by the given owner last at least the given time from now; never shortens it, so
-- that a watchdog renewal does not undo a longer extension that its holder asked for.
-- KEYS[1] lock
-- ARGV[1] owner id, ARGV[2] remaining lease ms at least
-- Returns 1 when held (and extended if it had less left), 0 when the lock expired or belongs to
-- someone else.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
