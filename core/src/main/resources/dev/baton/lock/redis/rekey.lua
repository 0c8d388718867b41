-- Gives a lock held by the given owner a new owner id and keeps its expiry: a lease handed over to a
-- token, or a token restored by a new holder, so that the old id (and a token used once) no longer
-- releases or extends it.
-- KEYS[1] lock
-- ARGV[1] current owner id, ARGV[2] new owner id
-- Returns the remaining lease in ms, or -1 when the lock expired or belongs to someone else.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
	return -1
end
local remaining = redis.call('PTTL', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return remaining
