-- Whether a lock is held by anyone.
-- KEYS[1] lock
-- Returns 1 when held, 0 when free.
return redis.call('EXISTS', KEYS[1])
