-- Sets the remaining lease of a lock, if the given owner still holds it.
-- KEYS[1] lock
-- ARGV[1] owner id, ARGV[2] new remaining lease ms
-- Returns 1 when extended, 0 when the lock expired or belongs to someone else.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
