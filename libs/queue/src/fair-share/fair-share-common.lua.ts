import { LANES } from './fair-share-lanes.lua';

/**
 * What every fair-share script shares: its keys, the clock, the slots and the tenants' turns (admission).
 * docs/fair-share.md states the invariants the scripts keep.
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

export const COMMON = `
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
