package engine

import (
	"fmt"
	"strings"

	"github.com/lockkv/lockkv/internal/rdb"
)

// fuzzSeeds are FuzzExec's and FuzzApply's seed sessions: real commands of
// every family, their options and edge numbers, one command a line.
var fuzzSeeds = []string{
	// Strings.
	"SET k v EX 10\nGET k\nSET k v2 PX 100 XX GET\nSET k v NX KEEPTTL\nGETEX k PERSIST\nGETEX k EXAT 1700000000001\nGETDEL k",
	"SET k 10\nINCR k\nINCRBY k 9223372036854775807\nDECRBY k -9223372036854775808\nINCRBYFLOAT k 1e308\nINCRBYFLOAT k -inf\nDECR k",
	"SET k hello\nAPPEND k world\nSETRANGE k 3 XY\nGETRANGE k -3 -1\nSTRLEN k\nSUBSTR k 0 -1\nSETRANGE k 65535 x\nGETSET k new",
	"MSET a 1 b 2\nMGET a b c\nMSETNX a 1 c 3\nSETNX a 9\nSETEX e 10 v\nPSETEX e 10 v\nSET e v EXAT 9223372036854775807",
	"SET a ohmytext\nSET b mynewtext\nLCS a b\nLCS a b LEN\nLCS a b IDX MINMATCHLEN 4 WITHMATCHLEN\nLCS a b IDX LEN",
	"SET k v EX 0\nSET k v PX -1\nSET k v EX 9223372036854775807\nSET k v PXAT 1\nSET k v EX 10 PX 10\nSET k v GET NX",
	// Bitmaps.
	"SETBIT b 7 1\nGETBIT b 7\nBITCOUNT b\nBITCOUNT b 0 -1 BIT\nBITPOS b 1\nBITPOS b 0 2 -1 BYTE\nSETBIT b 524287 1",
	"BITFIELD b SET u8 0 255 GET i16 4 INCRBY i5 100 1 OVERFLOW SAT INCRBY u2 102 1\nBITFIELD_RO b GET u4 0\nBITFIELD b OVERFLOW FAIL INCRBY i64 0 1\nBITFIELD b GET u63 #3",
	"SET a abc\nSET b xyz\nBITOP AND d a b\nBITOP OR d a b\nBITOP XOR d a b c\nBITOP NOT d a\nGET d",
	// Keys and expiry.
	"SET k v\nEXPIRE k 100\nTTL k\nPEXPIRE k 100 NX\nEXPIRE k 200 GT\nEXPIRE k 50 LT XX\nEXPIRETIME k\nPEXPIRETIME k\nPERSIST k\nPTTL k",
	"SET k v\nEXPIRE k 9223372036854775807\nPEXPIRE k 9223372036854775807\nEXPIREAT k -9223372036854775808\nPEXPIREAT k 0\nEXPIRE k -1\nEXISTS k",
	"SET a 1\nRENAME a b\nRENAMENX b a\nCOPY a c\nCOPY a c REPLACE DB 3\nMOVE c 3\nTYPE a\nDEL a b c\nUNLINK x\nTOUCH a b",
	"MSET a 1 b 2 c 3\nKEYS *\nKEYS [a-b]\nSCAN 0\nSCAN 0 MATCH a* COUNT 1 TYPE string\nRANDOMKEY\nDBSIZE\nSCAN 18446744073709551615 COUNT 100",
	"SET a 1\nOBJECT ENCODING a\nOBJECT FREQ a\nOBJECT IDLETIME a\nOBJECT REFCOUNT a\nOBJECT HELP\nMEMORY USAGE a SAMPLES 0\nDEBUG OBJECT a",
	"SELECT 3\nSET a 1\nSWAPDB 0 3\nSELECT 0\nGET a\nFLUSHDB\nFLUSHALL ASYNC\nSELECT 16",
	// Hashes.
	"HSET h f v g w\nHGET h f\nHMGET h f x\nHGETALL h\nHKEYS h\nHVALS h\nHLEN h\nHSTRLEN h f\nHEXISTS h g\nHDEL h f\nHSETNX h f z",
	"HSET h n 5\nHINCRBY h n 9223372036854775807\nHINCRBYFLOAT h n 1.5e10\nHRANDFIELD h\nHRANDFIELD h -5 WITHVALUES\nHRANDFIELD h 3\nHSCAN h 0 MATCH * COUNT 10\nHMSET h a b",
	// Lists.
	"RPUSH l a b c\nLPUSH l z\nLRANGE l 0 -1\nLINDEX l -1\nLSET l 0 q\nLINSERT l BEFORE b x\nLREM l 0 a\nLTRIM l 1 -2\nLPOS l b RANK -1 COUNT 0 MAXLEN 10\nLLEN l",
	"RPUSH l a b\nLPOP l 2\nRPOP l\nRPUSHX l x\nLPUSHX m y\nLMOVE l m LEFT RIGHT\nRPOPLPUSH l m\nLMPOP 2 l m LEFT COUNT 3",
	"BLPOP q 0\nRPUSH q x\nBRPOP q 0.5\nBLMOVE q r LEFT LEFT 0\nLPUSH q y\nBLMPOP 0 1 q RIGHT COUNT 2\nBRPOPLPUSH q r 1e-3",
	// Sets.
	"SADD s 1 2 3\nSADD t 3 4 x\nSMEMBERS s\nSISMEMBER s 2\nSMISMEMBER s 1 9\nSCARD s\nSINTER s t\nSUNIONSTORE u s t\nSDIFF s t\nSINTERCARD 2 s t LIMIT 1",
	"SADD s a b c d\nSPOP s\nSPOP s 2\nSRANDMEMBER s -3\nSRANDMEMBER s 10\nSMOVE s t a\nSREM s b\nSSCAN s 0 COUNT 1 MATCH ?\nSDIFFSTORE d s t\nSINTERSTORE i s t",
	// Sorted sets.
	"ZADD z 1 a 2 b 3 c\nZADD z XX GT CH 5 a\nZADD z NX INCR 1 d\nZADD z LT 0 b\nZSCORE z a\nZMSCORE z a x\nZRANK z c\nZREVRANK z c\nZCARD z\nZINCRBY z 2.5 c",
	"ZADD z 1 a 2 b 3 c 4 d\nZRANGE z 0 -1 WITHSCORES\nZRANGE z (1 +inf BYSCORE LIMIT 1 2\nZRANGE z [a (c BYLEX REV LIMIT 0 1\nZRANGEBYSCORE z -inf +inf LIMIT 0 -1\nZREVRANGEBYLEX z + -\nZRANGESTORE d z 0 1",
	"ZADD z 1 a 2 b\nZADD y 3 b 4 c\nZUNIONSTORE u 2 z y WEIGHTS 1 2 AGGREGATE MAX\nZINTER 2 z y WITHSCORES\nZDIFF 2 z y\nZINTERCARD 2 z y LIMIT 0\nZUNION 2 z y AGGREGATE SUM",
	"ZADD z 1 a 2 b 3 c\nZPOPMIN z\nZPOPMAX z 2\nZMPOP 1 z MIN COUNT 5\nBZPOPMIN z 0\nZADD z 0 x\nBZMPOP 0.1 1 z MAX\nZRANDMEMBER z -2 WITHSCORES\nZLEXCOUNT z - +\nZCOUNT z -inf (3",
	"ZADD z 1 a 2 b 3 c\nZREMRANGEBYRANK z 0 0\nZREMRANGEBYSCORE z (1 2\nZREMRANGEBYLEX z [a [z\nZREM z c\nZSCAN z 0\nZADD z nan x\nZADD z 1e400 x",
	// SORT.
	"RPUSH l 3 1 2\nSET w_1 9\nHSET o_2 f x\nSORT l\nSORT l DESC LIMIT 0 2 ALPHA\nSORT l BY w_* GET # GET o_*->f STORE d\nSORT_RO l BY nosort\nSORT l BY w_* LIMIT -1 9223372036854775807",
	// Transactions.
	"MULTI\nSET a 1\nINCR a\nLPUSH a x\nEXEC\nGET a",
	"WATCH a\nSET a 2\nMULTI\nGET a\nEXEC\nMULTI\nFOO\nEXEC\nDISCARD\nUNWATCH",
	// Scripting.
	"EVAL 0 1 k SET k v\nEVAL 1 0 GET k\nEVAL 2 1 k HGETALL k\nEVALSHA 0000000000000000000000000000000000000000 0\nSCRIPT LOAD 4\nEVALSHA 4 0 ZADD z 1 a\nSCRIPT EXISTS a b\nEVAL 8 0\nSCRIPT FLUSH\nEVAL_RO 3 0 GET k",
	"EVAL 5 0 LRANGE l 0 -1\nEVAL 6 0 SMEMBERS s\nEVAL 7 1 k v\nEVAL 1 0 SET k v\nEVAL 1 0 SORT l\nEVAL 1 0 BLPOP q 0\nEVAL 1 0 MULTI\nEVAL 1 0 CLIENT PAUSE 10\nEVAL 0 0 EVAL 1 0",
	"FUNCTION LOAD 0\nFCALL fz 1 k SET k v\nFCALL_RO fzro 0 GET k\nFCALL_RO fzro 0 SET k v\nFUNCTION LIST WITHCODE LIBRARYNAME f*\nFUNCTION DUMP\nFUNCTION STATS\nFUNCTION DELETE fz\nFUNCTION FLUSH",
	"FUNCTION LOAD 1\nFUNCTION LOAD REPLACE 1\nFCALL fz2 1 k\nFUNCTION RESTORE \x00 APPEND\nFUNCTION RESTORE abc FLUSH\nFUNCTION KILL\nSCRIPT KILL\nSCRIPT DEBUG NO\nSCRIPT HELP\nFUNCTION HELP",
	// Server, connection, config.
	"CONFIG GET *max*\nCONFIG SET hash-max-listpack-entries 1\nHSET h a 1 b 2\nCONFIG SET maxmemory-policy allkeys-lfu lfu-log-factor 0\nCONFIG RESETSTAT\nCONFIG SET notify-keyspace-events KEA\nCONFIG GET notify*",
	"CONFIG SET set-max-intset-entries 1\nSADD s 1 2\nCONFIG SET zset-max-listpack-entries 0\nZADD z 1 a\nCONFIG SET zset-max-listpack-value 1\nCONFIG SET hz 500\nCONFIG SET save \"\"\nCONFIG REWRITE",
	"INFO\nINFO commandstats errorstats keyspace\nTIME\nLASTSAVE\nROLE\nDBSIZE\nCOMMAND COUNT\nCOMMAND INFO get set\nCOMMAND DOCS zadd\nCOMMAND LIST FILTERBY ACLCAT hash\nCOMMAND GETKEYS SORT a STORE b",
	"COMMAND GETKEYSANDFLAGS EVAL x 2 a b\nCOMMAND GETKEYS ZUNIONSTORE d 2 a b\nCOMMAND GETKEYS GET\nCOMMAND GETKEYS NOSUCH a\nCOMMAND HELP\nCOMMAND LIST FILTERBY PATTERN z*",
	"CLIENT SETNAME me\nCLIENT GETNAME\nCLIENT ID\nCLIENT INFO\nCLIENT LIST TYPE normal\nCLIENT NO-EVICT on\nCLIENT NO-TOUCH on\nCLIENT SETINFO lib-name x\nCLIENT REPLY SKIP\nPING\nCLIENT REPLY ON",
	"CLIENT TRACKING on BCAST PREFIX a\nSET ab 1\nCLIENT TRACKINGINFO\nCLIENT GETREDIR\nCLIENT CACHING yes\nCLIENT TRACKING off\nHELLO 3\nGET ab\nCLIENT TRACKING on OPTIN\nCLIENT CACHING yes\nGET ab\nSET ab 2",
	"CLIENT PAUSE 100 WRITE\nSET a 1\nCLIENT UNPAUSE\nCLIENT KILL ID 1\nCLIENT UNBLOCK 2 ERROR\nCLIENT KILL 127.0.0.1:1\nCLIENT KILL SKIPME no\nCLIENT HELP",
	"HELLO 3 SETNAME x\nHGETALL h\nZRANGE z 0 -1 WITHSCORES\nHELLO 2\nHELLO 4\nAUTH x\nAUTH default x\nECHO hi\nPING x\nRESET\nQUIT",
	"SUBSCRIBE a b\nPSUBSCRIBE a*\nPUBLISH a m\nSSUBSCRIBE s\nSPUBLISH s m\nPUBSUB CHANNELS\nPUBSUB NUMSUB a\nPUBSUB NUMPAT\nUNSUBSCRIBE\nPUNSUBSCRIBE\nSUNSUBSCRIBE",
	"MONITOR\nSET a 1\nWAIT 0 0\nWAITAOF 0 0 0\nDEBUG SLEEP 0\nMEMORY STATS\nMEMORY DOCTOR\nMEMORY MALLOC-STATS\nMEMORY PURGE\nSHUTDOWN ABORT\nSHUTDOWN NOSAVE SAVE",
	"CLUSTER INFO\nCLUSTER SLOTS\nCLUSTER KEYSLOT a\nREADONLY\nREADWRITE\nASKING\nSENTINEL MASTERS\nRAFT.NODE ADD a b",
}

// fuzzEscape writes b as a FuzzExec argument (%XX for the bytes that
// separate arguments and lines, and for '%').
func fuzzEscape(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		if c == ' ' || c == '\n' || c == '%' || c < 0x20 || c >= 0x7f {
			fmt.Fprintf(&s, "%%%02x", c)
			continue
		}
		s.WriteByte(c)
	}
	return s.String()
}

func init() {
	rdbStr := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	code := "redis.register_function('f', function() return 1 end)"
	lib := rdb.AppendString([]byte{rdb.OpcodeFunction2}, []byte("#!lua name=r\n"+code))
	preGA := append(append(append(append([]byte{rdb.OpcodeFunctionPreGA}, rdbStr("p")...), rdbStr("LUA")...), 0), rdbStr(code)...)
	huge := append([]byte{rdb.OpcodeFunction2, 0xC3, 2, 0x81}, 0, 0, 1, 0, 0, 0, 0, 0, 0, 'a')
	fuzzSeeds = append(fuzzSeeds,
		"FUNCTION RESTORE !"+fuzzEscape(lib)+"\nFCALL f 0\nFUNCTION DUMP\nFUNCTION RESTORE !"+fuzzEscape(preGA)+" REPLACE\nFUNCTION RESTORE !"+fuzzEscape(huge)+" FLUSH",
		"SET %00%ff%0d%0a v\nGET %00%ff%0d%0a\nEVAL 0 1 k%20 SET k%20 %0a",
		// DUMP and RESTORE: a list, a hash, a zset in RDB encodings.
		"RESTORE l 0 !"+fuzzEscape([]byte{rdb.TypeList, 2, 1, 'a', 1, 'b'})+"\nRESTORE h 0 !"+fuzzEscape([]byte{rdb.TypeHash, 1, 1, 'f', 1, 'v'})+" REPLACE IDLETIME 5\nRESTORE z 100 !"+fuzzEscape([]byte{rdb.TypeZSet, 1, 1, 'm', 1, '2'})+" ABSTTL FREQ 3\nDUMP l\nDUMP h\nMIGRATE h p l 0 10 COPY\nRESTORE l 0 x",
	)
}
