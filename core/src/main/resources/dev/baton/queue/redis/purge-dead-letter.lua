-- Deletes a dead letter.
-- KEYS[1] dead (zset), KEYS[2] dead payloads (hash), KEYS[3] dead info (hash)
-- ARGV[1] id
-- Returns: 1 if a dead letter was deleted, 0 if unknown
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
