package engine

import (
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
)

// Error texts, byte for byte as Redis 7.0 sends them (without the leading
// '-'). Formatters below build the ones that carry arguments. This file is
// the one place error text lives; handlers never spell an error inline.
const (
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrSyntax          = "ERR syntax error"
	ErrNotInt          = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrHashNotInt      = "ERR hash value is not an integer"
	ErrHashNotFloat    = "ERR hash value is not a float"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrIncrNaNInf      = "ERR increment would produce NaN or Infinity"
	ErrNoSuchKey       = "ERR no such key"
	ErrOutOfRange      = "ERR index out of range"
	ErrInvalidExpire   = "ERR invalid expire time in '%s' command"
	ErrDBIndex         = "ERR DB index is out of range"
	ErrSameObject      = "ERR source and destination objects are the same"
	ErrNotOK           = "ERR value is out of range, must be positive"
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrOffsetRange     = "ERR offset is out of range"
	ErrTimeoutNegative = "ERR timeout is negative"
	ErrTimeoutNotFloat = "ERR timeout is not a float or out of range"
	ErrTimeoutOverflow = "ERR timeout is out of range"
	ErrMinMaxNotFloat  = "ERR min or max is not a float"
	ErrMinMaxLex       = "ERR min or max not valid string range item"
	ErrNoAuth          = "NOAUTH Authentication required."
	ErrWrongPass       = "WRONGPASS invalid username-password pair or user is disabled."
	ErrAuthNoPassword  = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrMultiNested     = "ERR MULTI calls can not be nested"
	ErrExecNoMulti     = "ERR EXEC without MULTI"
	ErrDiscardNoMulti  = "ERR DISCARD without MULTI"
	ErrWatchInMulti    = "ERR WATCH inside MULTI is not allowed"
	ErrExecAbort       = "EXECABORT Transaction discarded because of previous errors."
	ErrNoProto         = "NOPROTO unsupported protocol version"
	ErrNoScript        = "NOSCRIPT No matching script. Please use EVAL."
	ErrBusy            = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrNotBusy         = "NOTBUSY No scripts in execution right now."
	ErrInvalidCursor   = "ERR invalid cursor"
	ErrUnknownType     = "ERR unknown type name" // not used by 7.0 SCAN TYPE (it returns nothing)
	ErrNoScriptCommand = "ERR This Redis command is not allowed from script"
	ErrWriteInReadOnly = "ERR Write commands are not allowed from read-only scripts."
	ErrCountPositive   = "ERR value is out of range, must be positive"
	ErrMaxClients      = "ERR max number of clients reached"
	// ErrWriteAfterNodeLocal refuses a write in a script applied from a
	// cluster's log after the script called a NodeLocal command (lockkv's;
	// DESIGN.md, "Scripts in the log"). It is the refusal of Redis 2.6 to
	// 4.0 under verbatim script replication (scripting.c's
	// lua_random_dirty), without the hint 3.2 added to call
	// redis.replicate_commands(), which switches nothing in lockkv.
	ErrWriteAfterNodeLocal = "ERR Write commands not allowed after non deterministic commands"
	// ErrFailoverTakeover refuses CLUSTER FAILOVER TAKEOVER (lockkv's).
	ErrFailoverTakeover = "ERR CLUSTER FAILOVER TAKEOVER is not supported: in a Raft cluster a node leads only once a quorum elected it; use CLUSTER FAILOVER (or FORCE)"
	// ErrFailoverNested refuses CLUSTER FAILOVER in MULTI or a script,
	// which cannot wait for the move (lockkv's).
	ErrFailoverNested   = "ERR CLUSTER FAILOVER cannot run in a transaction or a script"
	ErrUnknownSubHelp   = "ERR unknown subcommand '%s'. Try %s HELP."
	ErrXXandNX          = "ERR XX and NX options at the same time are not compatible"
	ErrGTLTNX           = "ERR GT, LT, and/or NX options at the same time are not compatible"
	ErrInvalidExpireNX  = "ERR NX and XX, GT or LT options at the same time are not compatible"
	ErrInvalidExpireGL  = "ERR GT and LT options at the same time are not compatible"
	ErrPubSubContext    = "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
	ErrCommandInMulti   = "ERR Command not allowed inside a transaction"
	ErrNegativeLength   = "ERR length is out of range"
	ErrBitValue         = "ERR bit is not an integer or out of range"
	ErrReadOnlyReplica  = "READONLY You can't write against a read only replica."
	ErrIndexMustBePos   = "ERR index out of range"
	ErrLimitNegative    = "ERR LIMIT can't be negative"
	ErrResetAuth        = "ERR RESET failed"
	ErrNumKeysZero      = "ERR numkeys should be greater than 0"
	ErrNumKeysTooBig    = "ERR Number of keys can't be greater than number of args"
	ErrNumKeysNegative  = "ERR Number of keys can't be negative"
	ErrCountNegative    = "ERR count should be greater than 0"
	ErrUnsupportedUnit  = "ERR unsupported unit provided. please use M, KM, FT, MI"
	ErrInvalidDBIndex   = "ERR invalid first DB index"
	ErrInvalidDBIndex2  = "ERR invalid second DB index"
	ErrSelectNotAllowed = "ERR SELECT is not allowed in cluster mode"

	// Sorted sets (commands/zset.go).
	ErrZNaN            = "ERR resulting score is not a number (NaN)"
	ErrZIncrPair       = "ERR INCR option supports a single increment-element pair"
	ErrZLimitRank      = "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
	ErrZWithscoresLex  = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
	ErrZWeightNotFloat = "ERR weight value is not a float"
)

// ErrZAtLeastOneKey is ZUNIONSTORE & co's error for numkeys < 1.
func ErrZAtLeastOneKey(name string) string {
	return "ERR at least 1 input key is needed for '" + name + "' command"
}

// ErrWrongArgs is the arity error for command name (lower case, "a|b" for
// subcommands).
func ErrWrongArgs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// ErrUnknownSubcommand is the error for an unknown subcommand of a container
// command, as Redis 7.0 words it.
func ErrUnknownSubcommand(container string, sub []byte) string {
	return "ERR unknown subcommand '" + truncate(string(sub), 128) + "'. Try " + strings.ToUpper(container) + " HELP."
}

// ErrUnknownCommand is Redis 7.0's unknown command error: the name, then up
// to 128 bytes of each argument, quoted (server.c processCommand).
func ErrUnknownCommand(args [][]byte) string {
	var sb strings.Builder
	sb.WriteString("ERR unknown command '")
	sb.WriteString(truncate(string(args[0]), 128))
	sb.WriteString("', with args beginning with: ")
	remaining := 128
	for _, a := range args[1:] {
		if remaining <= 0 {
			break
		}
		s := truncate(string(a), remaining)
		sb.WriteString("'")
		sb.WriteString(s)
		sb.WriteString("' ")
		remaining -= len(s) + 3
	}
	return sanitizeErr(sb.String())
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sanitizeErr replaces CR and LF, which may not appear in an error line.
func sanitizeErr(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// Keys and strings families (commands/keys.go, commands/string.go).
const (
	ErrDecrOverflow = "ERR decrement would overflow"
	// ErrUnknownTypeObject is COPY's reply for a value it cannot duplicate
	// (a type whose store value does not implement store.Cloner yet).
	ErrUnknownTypeObject = "ERR unknown type object"
	// ErrIntRange is getIntFromObjectOrReply's error for an integer
	// outside C int range.
	ErrIntRange = "ERR value is out of range, value must between -2147483648 and 2147483647"
	// LCS.
	ErrLCSNotString = "ERR The specified keys must contain string values"
	ErrLCSIdxAndLen = "ERR If you want both the length and indexes, please just use IDX."
	ErrLCSTooLong   = "ERR String too long for LCS"
	ErrLCSMemory    = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	// Bitmaps (commands/bitops.go).
	ErrBitOffset = "ERR bit offset is not an integer or out of range"
	ErrBitArg    = "ERR The bit argument must be 1 or 0."
	ErrBitopNot  = "ERR BITOP NOT must be called with a single source key."
	// BITFIELD.
	ErrBitfieldType     = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	ErrBitfieldOverflow = "ERR Invalid OVERFLOW type specified"
	ErrBitfieldRO       = "ERR BITFIELD_RO only supports the GET subcommand"
	// SORT.
	ErrSortScore = "ERR One or more scores can't be converted into double"
)

// ErrInternal answers a command that panicked (a lockkv bug, logged with
// the details; see recover.go). Redis has no such reply.
func ErrInternal(name string) string {
	return "ERR internal error running '" + name + "'"
}

// ErrUnsupportedOption is EXPIRE's error for an unknown option; opt is cut
// at its first NUL byte, as Redis prints it with %s.
func ErrUnsupportedOption(opt []byte) string {
	return "ERR Unsupported option " + string(cstr.CString(opt))
}

// ErrInvalidExpireTime is the invalid expire time error of command name
// ("set", "expire", "getex", ...).
func ErrInvalidExpireTime(name string) string {
	return "ERR invalid expire time in '" + name + "' command"
}

// Hash and set family (commands/hash.go, commands/set.go).
const (
	ErrNaNOrInf     = "ERR value is NaN or Infinity"
	ErrValueRange   = "ERR value is out of range"
	ErrLongMaxRange = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
)

// Scripting errors (EVAL family, SCRIPT, redis.call gates).
const (
	ErrScriptUnknownCommand   = "ERR Unknown Redis command called from script"
	ErrScriptWrongArgs        = "ERR Wrong number of args calling Redis command from script"
	ErrScriptROWrite          = "ERR Can not execute a script with write flag using *_ro command."
	ErrScriptFlushArg         = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	ErrScriptDebugArg         = "ERR Use SCRIPT DEBUG YES/SYNC/NO"
	ErrScriptDebugUnsupported = "ERR SCRIPT DEBUG YES/SYNC is not supported"
	ErrBusyFunction           = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	ErrFunctionNotFound       = "ERR Function not found"
	ErrDumpPayload            = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat          = "ERR Bad data format"
	ErrBgsaveInProgress       = "ERR Background save already in progress"
	ErrMigrateKeysArg         = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	ErrMigrateConnect         = "IOERR error or timeout connecting to the client"
	ErrMigrateWriting         = "IOERR error or timeout writing to target instance"
	ErrMigrateReading         = "IOERR error or timeout reading to target instance"
	ErrMigrateCluster         = "ERR MIGRATE inside MULTI or a script is not supported on a lockkv cluster node: every member would run it"
	ErrBusyKey                = "BUSYKEY Target key name already exists."
	ErrRestoreTTL             = "ERR Invalid TTL value, must be >= 0"
	ErrRestoreIdle            = "ERR Invalid IDLETIME value, must be >= 0"
	ErrRestoreFreq            = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	ErrRestorePolicy          = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
	ErrRestoreNotFunction     = "ERR given type is not a function"
	ErrRestoreLibrary         = "ERR Failed loading library payload"
	ErrRestoreLibraryName     = "ERR Failed loading library name"
	ErrRestoreEngineName      = "ERR Failed loading engine name"
	ErrRestoreDescription     = "ERR Failed loading library description"
	ErrRestoreBlob            = "ERR Failed loading library blob"
	ErrBadNumKeys             = "ERR Bad number of keys provided"
	ErrFunctionName           = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	ErrLibraryNotFound        = "ERR Library not found"
	ErrFunctionFlushArg       = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option"
	ErrLibraryNameMissing     = "ERR library name argument was not given"
	ErrUnkillable             = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	ErrScriptOOM              = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
)

// maxmemory (evict.go).
const (
	// ErrOOM is shared.oomerr: a command that may grow memory, refused
	// while used memory is over maxmemory.
	ErrOOM = "OOM command not allowed when used memory > 'maxmemory'."
	// ErrEvictionPolicy is lockkv's own: it never evicts keys, so CONFIG
	// SET refuses a maxmemory limit with any other policy than noeviction.
	// The settings table (package config) gives it for a config file too.
	ErrEvictionPolicy = config.ErrEvictionPolicy
)

// Connection and server commands (HELLO, AUTH, CLIENT, CONFIG, INFO, ...).
const (
	ErrHelloProtoNotInt   = "ERR Protocol version is not an integer or out of range"
	ErrHelloNoAuth        = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	ErrClientName         = "ERR Client names cannot contain spaces, newlines or special characters."
	ErrNoSuchClient       = "ERR No such client"
	ErrClientIDPositive   = "ERR client-id should be greater than 0"
	ErrInvalidClientID    = "ERR Invalid client ID"
	ErrUnblockReason      = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
	ErrPauseMode          = "ERR CLIENT PAUSE mode must be WRITE or ALL"
	ErrTimeoutNotInt      = "ERR timeout is not an integer or out of range"
	ErrClusterDisabled    = "ERR This instance has cluster support disabled"
	ErrInvalidCommand     = "ERR Invalid command specified"
	ErrNoKeyArgs          = "ERR The command has no key arguments"
	ErrInvalidArgsForCmd  = "ERR Invalid number of arguments specified for command"
	ErrConfigRewriteNoCfg = "ERR The server is running without a config file"
	ErrObjectFreqPolicy   = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	ErrUnblocked          = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
)

// Redis 7.2's CLIENT SETINFO and WAITAOF (7.0.15 has neither).
const (
	// ErrWaitAOFLocalRange is getRangeLongFromObjectOrReply's error for a
	// numlocal other than 0 or 1.
	ErrWaitAOFLocalRange = "ERR value is out of range, value must between 0 and 1"
	ErrWaitAOFNoAOF      = "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."
)

// ErrUnrecognizedOption is CLIENT SETINFO's error for an attribute other
// than LIB-NAME and LIB-VER, printed as C prints it (up to a NUL byte).
func ErrUnrecognizedOption(opt []byte) string {
	return "ERR Unrecognized option '" + string(cstr.CString(opt)) + "'"
}

// ErrClientAttr is CLIENT SETINFO's error for a value with a byte outside
// '!'..'~'; the attribute is named as the client spelt it.
func ErrClientAttr(attr []byte) string {
	return "ERR " + string(cstr.CString(attr)) + " cannot contain spaces, newlines or special characters."
}

// ErrHelloOption is HELLO's error for an unknown or incomplete option.
func ErrHelloOption(opt []byte) string {
	return "ERR Syntax error in HELLO option '" + string(opt) + "'"
}

// ErrUnknownClientType is CLIENT LIST/KILL's error for a bad TYPE.
func ErrUnknownClientType(t []byte) string {
	return "ERR Unknown client type '" + string(t) + "'"
}

// ErrNoSuchUser is CLIENT KILL USER's error for an unknown user.
func ErrNoSuchUser(u []byte) string {
	return "ERR No such user '" + string(u) + "'"
}

// Server commands (SHUTDOWN, OBJECT).
const (
	ErrNoShutdown     = "ERR No shutdown in progress."
	ErrShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs."
	ErrObjectIdleLFU  = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// ErrSubcommandSyntax is Redis's addReplySubcommandSyntaxError.
func ErrSubcommandSyntax(container string, sub []byte) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + truncate(string(sub), 128) + "'. Try " + strings.ToUpper(container) + " HELP."
}

// Pub/sub, transactions, keyspace notifications, client-side caching
// (pubsub.go, multi.go, notify.go, tracking.go).
const (
	ErrExecAbortBecause       = "EXECABORT Transaction discarded because of: "
	ErrSSubscribeDenyBlocking = "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"
	// ErrNotifyClassChar is the reason CONFIG SET notify-keyspace-events
	// gives for an unknown class character.
	ErrNotifyClassChar        = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
	ErrTrackingRedirectTwice  = "ERR A client can only redirect to a single other client"
	ErrTrackingNoSuchRedirect = "ERR The client ID you want redirect to does not exist"
	ErrTrackingPrefixNoBcast  = "ERR PREFIX option requires BCAST mode to be enabled"
	ErrTrackingBcastSwitch    = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	ErrTrackingOptBcast       = "ERR OPTIN and OPTOUT are not compatible with BCAST"
	ErrTrackingOptInOut       = "ERR You can't specify both OPTIN mode and OPTOUT mode"
	ErrTrackingOptSwitch      = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	ErrCachingNotTracking     = "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"
	ErrCachingYesNotOptin     = "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."
	ErrCachingNoNotOptout     = "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."
)

// errPrefixOverlapExisting and errPrefixOverlapProvided are CLIENT
// TRACKING's prefix collision errors (tracking.c); prefixes print as C
// strings.
func errPrefixOverlapExisting(p, existing string) string {
	return "ERR Prefix '" + string(cstr.CString([]byte(p))) + "' overlaps with an existing prefix '" + string(cstr.CString([]byte(existing))) + "'. Prefixes for a single client must not overlap."
}

func errPrefixOverlapProvided(p, other string) string {
	return "ERR Prefix '" + string(cstr.CString([]byte(p))) + "' overlaps with another provided prefix '" + string(cstr.CString([]byte(other))) + "'. Prefixes for a single client must not overlap."
}

// Lists and blocking commands.
const (
	ErrLposRankZero  = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	ErrLposCountNeg  = "ERR COUNT can't be negative"
	ErrLposMaxlenNeg = "ERR MAXLEN can't be negative"
	// ErrInvalidArgsSpecified is COMMAND GETKEYS's error when a command
	// with keys names none in the given arguments.
	ErrInvalidArgsSpecified = "ERR Invalid arguments specified for command"
)

// Function family errors that carry arguments (functions.go).
func ErrFunctionUnknownOption(opt []byte) string {
	return "ERR Unknown option given: " + string(cstr.CString(opt))
}

func ErrFunctionUnknownArg(arg []byte) string {
	return "ERR Unknown argument " + string(cstr.CString(arg))
}

func ErrEngineNotFound(engine string) string { return "ERR Engine '" + engine + "' not found" }

func ErrLibraryExists(name string) string { return "ERR Library '" + name + "' already exists" }

func ErrFunctionExists(name string) string { return "ERR Function " + name + " already exists" }

// Replication.
const (
	ErrUnblockedRole  = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"
	ErrLeadershipLost = "ERR leadership lost before the command was committed: it may or may not have been applied"
	// ErrBadOp answers a command whose log entry no node could apply
	// (corrupt); it was not applied anywhere.
	ErrBadOp       = "ERR internal error: the command's log entry is malformed, it was not applied"
	ErrClusterDown = "CLUSTERDOWN The cluster is down"
	ErrWaitReplica = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."
	// Redis 7.2's replication.c.
	ErrWaitAOFReplica = "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated."

	// CLUSTER and SENTINEL in cluster mode.
	ErrInvalidSlot       = "ERR Invalid slot"
	ErrInvalidSlotOrKeys = "ERR Invalid slot or number of keys"
	ErrNotMasterNode     = "ERR The specified node is not a master"
	ErrNoSuchMaster      = "ERR No such master with that name"
)

// RAFT.NODE (lockkv's own).
const ErrRaftNodeID = "ERR invalid node ID: " + NodeIDRule

// ErrRaftAddr is RAFT.NODE ADD's error for a Raft address that is not
// host:port.
func ErrRaftAddr(a []byte) string {
	return "ERR invalid Raft address '" + truncate(string(a), 128) + "': want host:port"
}

// ErrRaftClientAddr is RAFT.NODE ADD's error for a client address that is
// not host:port.
func ErrRaftClientAddr(a []byte) string {
	return "ERR invalid client address '" + truncate(string(a), 128) + "': want host:port"
}

// SentinelQuorumOK is SENTINEL CKQUORUM's status reply (a format for the
// number of usable Sentinels).
const SentinelQuorumOK = "OK %d usable Sentinels. Quorum and failover authorization can be reached"

// ErrSentinelNoQuorum is SENTINEL CKQUORUM's error when fewer than a
// majority is usable (lockkv's quorum is the majority, so both of
// Sentinel's reasons apply).
func ErrSentinelNoQuorum(usable int) string {
	return "NOQUORUM " + strconv.Itoa(usable) + " usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master. Not enough available Sentinels to reach the majority and authorize a failover"
}

// ErrSentinelUnsupported answers the SENTINEL subcommands that reconfigure
// a Sentinel: a Raft cluster's membership changes through RAFT.NODE.
func ErrSentinelUnsupported(sub string) string {
	return "ERR SENTINEL " + strings.ToUpper(sub) + " is not supported: lockkv's leader is chosen by Raft"
}

// ErrUnknownNode is CLUSTER REPLICAS' error for a node ID it does not know.
func ErrUnknownNode(id string) string { return "ERR Unknown node " + id }

// Who may connect and run DEBUG (security.go).
const (
	// ErrDebugNotAllowed is processCommand's refusal of a CMD_PROTECTED
	// command under enable-debug-command no (or local, from afar).
	ErrDebugNotAllowed = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	// ErrProtectedMode is what protected mode writes to a client it turns
	// away (not an error reply: no error statistics count it).
	ErrProtectedMode = "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."
)
