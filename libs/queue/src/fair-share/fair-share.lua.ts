import { LANES } from './fair-share-lanes.lua';

/**
 * The fair share's Redis scripts. Each runs atomically, so every process sees one consistent state.
 * docs/fair-share.md states the invariants they keep.
 *
 * KEYS (all under one prefix, so one hash slot on a cluster):
 *   1 entries   HASH  job id → {t: tenant, n: name, d: data, o: options}, from add until the job ends
 *   2 ring      LIST  the tenants with work waiting, each once, served round robin
 *   3 delayed   ZSET  job id → when it is due (ms)
 *   4 leases    ZSET  lease id → when to look at it again (ms); one member per slot in use
 *   5 lease     HASH  lease id → kind ('b' a Bull job, 'h' a hold renewed by its process) .. tenant
 *   6 held      HASH  tenant → slots it holds
 *   7 workers   ZSET  process → when its registration lapses (ms)
 *   8 capacity  HASH  process → "slots:reserved"
 *   9 resting   ZSET  tenant → until when it takes no slot and is not counted as waiting (ms)
 *  10, 11        a tenant's lanes (fair-share-lanes.lua.ts)
 * ARGV: 1 prefix of a tenant's waiting list, 2 prefix of a Bull job's key, 3 the share of a lone tenant,
 *   4 the most jobs one call admits, 5 how long an admitted job has to reach Bull before its lease is looked
 *   at (ms), 6 how often the lease of a job in Bull is looked at (ms); then the script's own arguments.
 */
export const FAIR_SHARE_KEYS = [
  'entries',
  'ring',
  'delayed',
  'leases',
  'lease',
  'held',
  'workers',
  'capacity',
  'resting',
  'lanes',
  'leaseLane',
] as const;

/** At most this many tenants are visited by one admission (a bound on the script's time). */
const MAX_VISITS = 500;
/** Tenants looked at by one question whether a slot is wanted. */
const MAX_WANTED_VISITS = 10;

const COMMON = `
local rcall = redis.call
local clock = rcall('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local pendingPrefix, jobPrefix = ARGV[1], ARGV[2]
local aloneShare, admitLimit = tonumber(ARGV[3]), tonumber(ARGV[4])
local handOverMs, recheckMs = tonumber(ARGV[5]), tonumber(ARGV[6])
${LANES}

local function slotsNow()
  local lapsed = rcall('ZRANGEBYSCORE', KEYS[7], '-inf', now)
  if #lapsed > 0 then
    rcall('ZREMRANGEBYSCORE', KEYS[7], '-inf', now)
    rcall('HDEL', KEYS[8], unpack(lapsed))
  end
  local slots, reserved = 0, 0
  for _, value in ipairs(rcall('HVALS', KEYS[8])) do
    local s, r = string.match(value, '^(%d+):(%d+)$')
    slots = slots + tonumber(s)
    reserved = reserved + tonumber(r)
  end
  return slots, reserved
end

local function heldBy(tenant)
  return tonumber(rcall('HGET', KEYS[6], tenant) or '0')
end

-- A tenant that put a job back to rest declined slots until the job is due.
local function rests(tenant)
  local untilMs = rcall('ZSCORE', KEYS[9], tenant)
  return untilMs ~= false and tonumber(untilMs) > now
end

-- Tenants of the ring that rest: the others are the ones waiting. A few rest at a time (a rest lasts
-- until one put-back job is due); past ${MAX_VISITS}, the rest count as waiting.
local function restingInRing()
  local count = 0
  for _, tenant in ipairs(rcall('ZRANGEBYSCORE', KEYS[9], '(' .. now, '+inf', 'LIMIT', 0, ${MAX_VISITS})) do
    if waits(tenant) then count = count + 1 end
  end
  return count
end

-- How many slots one tenant may hold: a share of those not reserved (at least one). Of all slots, half for
-- each of two tenants would leave the one below half only what the other and the reserve leave it.
local function shareOf(slots, reserved, share)
  return math.max(1, math.floor((slots - reserved) * share))
end

-- How many slots one tenant may hold: half of the slots not reserved while another tenant waits, aloneShare otherwise.
local function capOf(slots, reserved, othersWait)
  if othersWait then return shareOf(slots, reserved, 0.5) end
  return shareOf(slots, reserved, aloneShare)
end

-- The rule of the fair share: a free slot; the last reserved ones only for a tenant that holds none;
-- at most half of the slots not reserved while another tenant waits, at most aloneShare of them otherwise.
local function mayTake(held, inUse, slots, reserved, othersWait)
  if inUse >= slots then return false end
  if held == 0 then return true end
  if inUse >= slots - reserved then return false end
  return held < capOf(slots, reserved, othersWait)
end

local function lease(id, kind, tenant, lookAt, field)
  rcall('ZADD', KEYS[4], lookAt, id)
  rcall('HSET', KEYS[5], id, kind .. tenant)
  rcall('HINCRBY', KEYS[6], tenant, 1)
  leaseInLane(id, field)
end

local function unlease(id)
  unleaseInLane(id)
  local info = rcall('HGET', KEYS[5], id)
  rcall('ZREM', KEYS[4], id)
  if not info then return nil end
  local tenant = string.sub(info, 2)
  rcall('HDEL', KEYS[5], id)
  if rcall('HINCRBY', KEYS[6], tenant, -1) <= 0 then rcall('HDEL', KEYS[6], tenant) end
  return string.sub(info, 1, 1), tenant
end

-- Whether the tenant is in the turns: it is exactly when it has work waiting, but a process of the code before
-- lanes drops one whose work waits only in lanes, so only that case is looked up (LPOS walks the ring).
local function inTurns(tenant)
  if not waits(tenant) then return false end
  if rcall('LLEN', pendingPrefix .. tenant) > 0 then return true end
  return rcall('LPOS', KEYS[2], tenant) ~= false
end

-- A job waits in its lane (lane: nil or '' for none), else in its tenant's own list; its tenant joins the turns.
local function enqueue(id, tenant, lane, first)
  if not inTurns(tenant) then rcall('RPUSH', KEYS[2], tenant) end
  if enqueueInLane(id, tenant, lane, first) then return end
  local list = pendingPrefix .. tenant
  if first then rcall('LPUSH', list, id) else rcall('RPUSH', list, id) end
end

-- Round robin over the tenants with work waiting: one job of a tenant, then the next tenant; a resting one is passed over.
local function admit(out)
  local waiting = rcall('LLEN', KEYS[2])
  if waiting == 0 then return out end
  local slots, reserved = slotsNow()
  local inUse = rcall('ZCARD', KEYS[4])
  local active = waiting - restingInRing()
  local admitted, idle, visits = 0, 0, 0
  while admitted < admitLimit and inUse < slots and active > 0 and idle < waiting and visits < ${MAX_VISITS} do
    visits = visits + 1
    local tenant = rcall('LPOP', KEYS[2])
    local took = false
    local resting = rests(tenant)
    if not resting and mayTake(heldBy(tenant), inUse, slots, reserved, active > 1) then
      local id, field = nextOfTenant(tenant, capOf(slots, reserved, active > 1))
      local entry = id and rcall('HGET', KEYS[1], id)
      if entry then
        lease(id, 'b', tenant, now + handOverMs, field)
        inUse = inUse + 1
        admitted = admitted + 1
        out[#out + 1] = id
        out[#out + 1] = entry
      end
      took = id and true
    end
    if waits(tenant) then
      rcall('RPUSH', KEYS[2], tenant)
    else
      waiting = waiting - 1
      if not resting then active = active - 1 end
    end
    if took then idle = 0 else idle = idle + 1 end
  end
  return out
end
`;

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
for _, id in ipairs(rcall('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 200)) do
  local info = rcall('HGET', KEYS[5], id)
  local job = jobPrefix .. id
  if not info or string.sub(info, 1, 1) == 'h' then
    unlease(id)
  elseif rcall('EXISTS', job) == 0 then
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
