-- Gives a lock held by the given owner a new owner id and keeps its expiry: a lease handed over to a
-- token, or a token restored by a new holder, so that the old id (and a token used once) no longer
-- releases or extends it. Run twice (Lettuce sends a command again after a reconnect when its reply
-- was lost), the second run finds the new owner id already set: new owner ids are never reused, so
-- that is this change's own first run, and it answers as that run did.
-- KEYS[1] lock
-- ARGV[1] current owner id, ARGV[2] new owner id
-- Returns the remaining lease in ms, or -1 when the lock expired or belongs to someone else.
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[2] then
	return redis.call('PTTL', KEYS[1])
end
if owner ~= ARGV[1] then
	return -1
end
local remaining = redis.call('PTTL', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return remaining
