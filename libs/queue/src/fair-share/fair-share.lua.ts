import { COMMON } from './fair-share-common.lua';

export { FAIR_SHARE_KEYS } from './fair-share-common.lua';

/** Tenants looked at by one question whether a slot is wanted. */
const MAX_WANTED_VISITS = 10;

// The fair share's Redis scripts, each on COMMON. Each runs atomically, so every process sees one consistent state.

/**
 * ARGV 7.. in fives: job id, tenant, entry, delay (ms), lane ('' for none). An id already known is ignored.
 * Returns {0, id, entry, …} admitted.
 */
export const ADD_SCRIPT = `${COMMON}
for i = 7, #ARGV, 5 do
  local id, tenant, delay = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 3])
  if rcall('HSETNX', KEYS[1], id, ARGV[i + 2]) == 1 then
    if delay > 0 then rcall('ZADD', KEYS[3], now + delay, id) else enqueue(id, tenant, ARGV[i + 4], false) end
  end
end
return admit({0})
`;

/** ARGV 7..: lease ids whose work has ended. Returns {0, id, entry, …} admitted in their place. */
export const RELEASE_SCRIPT = `${COMMON}
for i = 7, #ARGV do
  if unlease(ARGV[i]) == 'b' then rcall('HDEL', KEYS[1], ARGV[i]) end
end
return admit({0})
`;

/**
 * ARGV 7 hold id, 8 tenant, 9 its lease (ms), 10 its lane ('' for none). A slot for work run outside Bull: 1 taken
 * (or held already), 0 not now (a resting tenant takes none).
 */
export const HOLD_SCRIPT = `${COMMON}
local id, tenant, field = ARGV[7], ARGV[8], laneField(ARGV[8], ARGV[10])
if rcall('HEXISTS', KEYS[5], id) == 1 then
  rcall('ZADD', KEYS[4], now + tonumber(ARGV[9]), id)
  return 1
end
if rests(tenant) then return 0 end
local slots, reserved = slotsNow()
local others = rcall('LLEN', KEYS[2]) - restingInRing()
if waits(tenant) then others = others - 1 end
if not mayTake(heldBy(tenant), rcall('ZCARD', KEYS[4]), slots, reserved, others > 0) then return 0 end
if not laneMayTake(field, capOf(slots, reserved, others > 0)) then return 0 end
lease(id, 'h', tenant, now + tonumber(ARGV[9]), field)
return 1
`;

/**
 * ARGV 7 a job's id, 8 a delay (ms), 9 '1' when its tenant rests meanwhile: the job gives its slot back
 * without having run and is due again after the delay (its entry kept; it then goes to the head of its
 * tenant's list). A resting tenant takes no slot and is not counted as waiting until then.
 * Returns {0, id, entry, …} admitted.
 */
export const PUT_BACK_SCRIPT = `${COMMON}
local kind, tenant = unlease(ARGV[7])
if kind == 'b' and rcall('HEXISTS', KEYS[1], ARGV[7]) == 1 then
  local due = now + tonumber(ARGV[8])
  rcall('ZADD', KEYS[3], due, ARGV[7])
  if ARGV[9] == '1' and (tonumber(rcall('ZSCORE', KEYS[9], tenant) or '0') < due) then
    rcall('ZADD', KEYS[9], due, tenant)
  end
end
return admit({0})
`;

/**
 * ARGV 7 a tenant that holds slots. 1 when another tenant with work waiting (among the first ${MAX_WANTED_VISITS} of
 * the ring, not resting) holds fewer than its half and at least two fewer than it, or, while this tenant
 * rests, fewer than its share: a slot this tenant gives back goes to that tenant, now or after the next.
 * 0 otherwise.
 */
export const WANTED_SCRIPT = `${COMMON}
local slots, reserved = slotsNow()
local half = shareOf(slots, reserved, 0.5)
local mine, resting = heldBy(ARGV[7]), rests(ARGV[7])
local active = rcall('LLEN', KEYS[2]) - restingInRing()
for _, tenant in ipairs(rcall('LRANGE', KEYS[2], 0, ${MAX_WANTED_VISITS - 1})) do
  if tenant ~= ARGV[7] and not rests(tenant) then
    local theirs = heldBy(tenant)
    if resting then
      local share = aloneShare
      if active > 1 then share = 0.5 end
      if theirs < shareOf(slots, reserved, share) then return 1 end
    elseif theirs < half and theirs + 1 < mine then
      return 1
    end
  end
end
return 0
`;

/** ARGV 7: a delayed job's id. 1 when it was withdrawn, 0 when it is not (or no longer) delayed. */
export const WITHDRAW_SCRIPT = `${COMMON}
if rcall('ZREM', KEYS[3], ARGV[7]) == 1 then
  rcall('HDEL', KEYS[1], ARGV[7])
  return 1
end
return 0
`;

/**
 * A process's turn: ARGV 7 process, 8 its slots, 9 of them reserved, 10 its registration (ms), 11 a hold's
 * lease (ms), 12.. the holds it renews. Registers the process, renews its holds, moves due jobs to the
 * head of their tenant's list, looks at lapsed leases, admits. Returns {ms until the next due job or -1, id, entry, …}.
 */
export const TICK_SCRIPT = `${COMMON}
if tonumber(ARGV[8]) > 0 then
  rcall('ZADD', KEYS[7], now + tonumber(ARGV[10]), ARGV[7])
  rcall('HSET', KEYS[8], ARGV[7], ARGV[8] .. ':' .. ARGV[9])
end
slotsNow()
rcall('ZREMRANGEBYSCORE', KEYS[9], '-inf', now)
for i = 12, #ARGV do
  if rcall('HEXISTS', KEYS[5], ARGV[i]) == 1 then rcall('ZADD', KEYS[4], now + tonumber(ARGV[11]), ARGV[i]) end
end
local due = rcall('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)
for i = #due, 1, -1 do
  rcall('ZREM', KEYS[3], due[i])
  local entry = rcall('HGET', KEYS[1], due[i])
  if entry then
    local job = cjson.decode(entry)
    enqueue(due[i], job.t, job.r, true)
  end
end
local function dropHusk(id, job)
  rcall('DEL', job, job .. ':lock')
  for _, list in ipairs({'wait', 'active', 'paused'}) do rcall('LREM', jobPrefix .. list, 0, id) end
  for _, set in ipairs({'delayed', 'failed', 'completed', 'priority'}) do rcall('ZREM', jobPrefix .. set, id) end
end
for _, id in ipairs(rcall('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 200)) do
  local info = rcall('HGET', KEYS[5], id)
  local job = jobPrefix .. id
  if not info or string.sub(info, 1, 1) == 'h' then
    unlease(id)
  elseif rcall('HEXISTS', job, 'data') == 0 then
    -- Gone from Bull, or a husk of it: a take sent before Redis lost the job and resent after writes
    -- processedOn (and then its failure) under the id, which would make Bull ignore the job added again.
    if rcall('EXISTS', job) == 1 then dropHusk(id, job) end
    local _, tenant = unlease(id)
    local entry = rcall('HGET', KEYS[1], id)
    if entry then enqueue(id, tenant, cjson.decode(entry).r, true) end
  elseif rcall('HEXISTS', job, 'finishedOn') == 1 then
    unlease(id)
    rcall('HDEL', KEYS[1], id)
  else
    rcall('ZADD', KEYS[4], now + recheckMs, id)
  end
end
local out = {-1}
local first = rcall('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if first[2] then out[1] = math.max(0, tonumber(first[2]) - now) end
return admit(out)
`;
