package lock

// redissonDigests are the SHA-1s of the scripts as Redisson's Java builds them:
// the Java string expressions of Redisson 3.27.0, copied verbatim into a
// Java program and hashed there (java -version 17), not computed from
// this package. A script whose bytes drift from Redisson's fails
// TestScriptDigests.
var redissonDigests = map[string]string{
	"scriptFairAcquire":       "762bfafa6be221431a0b668685dd15c926483619",
	"scriptFairAcquireFailed": "d1ddef65ad80886b5d36e023c99930044ddd653a",
	"scriptFairForceRelease":  "047c11d7fec40d0102fe9903ff1e19e9a1dec610",
	"scriptFairRelease":       "ca303f8587d0942f8a0021f62338626ca4dd0118",
	"scriptFencedAcquire":     "49babb5a1e6a0c5f188c2ae62b93b51cdfd63e45",
	"scriptLatchCountDown":    "38060fab26b0e7c5982a5cfd7ad542e44d3da19b",
	"scriptLatchDelete":       "47aed1b8133417c9bc009ffc08602e37ed4a1bb3",
	"scriptLatchTrySetCount":  "2a52d54a6f35bc8af5e84a2930b2ca1aa2a15892",
	"scriptLockAcquire":       "149c5a8bf18676fd99e9e6e24923bd64d9b62f94",
	"scriptLockForceRelease":  "605e338249a7a1d40df83b04f7658354f883b41b",
	"scriptLockRelease":       "6866459238a13a701d42f4971f12d9f3a50e2442",
	"scriptPESAcquire":        "992c96b09a3d8ea0b37f5dc12e5347a44d93909d",
	"scriptPESAddPermits":     "ec6fb1cd5f66817424e8fe70fee7929391b7c6f0",
	"scriptPESAvailable":      "26b3972b2c9e617556282f404cb79709d746a713",
	"scriptPESRelease":        "4ce079451bee2993ce00c8a4e205b536c6ccad67",
	"scriptPESTrySetPermits":  "241ce4e87e652b4f9b39d33cbcd7df9ee8ed906c",
	"scriptReadAcquire":       "95553a6ff11176c18e71344e89d116b06fd6f753",
	"scriptReadForceRelease":  "27dbe744e95c1d854a7f556cc6817030de2d0d01",
	"scriptReadIsLocked":      "8ad44f1ba014938c20da38206b6d496c85ec1aed",
	"scriptReadRelease":       "5947c0fee6ca25ae094ec1b3e7a2559a9273d29f",
	"scriptReadRenew":         "6563941ff57e01b8cf61e86907b80686438a2f74",
	"scriptRenew":             "8e19a1ddbdee9138df9f32a480c57addab4353d1",
	"scriptSemAcquire":        "c7dc9d189c1715465a31a06ddbc008585e0c20be",
	"scriptSemAddPermits":     "98238d408c6755085344670d3a2ddaa55cf177a9",
	"scriptSemDrain":          "c87766d572855e9461c4ecd453db5d1cbab6119e",
	"scriptSemRelease":        "ae27582488dd01f4e238cc0733a12146d410eb44",
	"scriptSemTrySetPermits":  "241ce4e87e652b4f9b39d33cbcd7df9ee8ed906c",
	"scriptSpinAcquire":       "dad0f8d619e548e04f21fb48d50be5034df3adae",
	"scriptSpinForceRelease":  "51b433c3cc9a6ca991b3aefec63d23490c246318",
	"scriptSpinRelease":       "73ac2729af29ea9a975f95e8097f7ee9a74cce3d",
	"scriptWriteAcquire":      "6306ba3bf1f563b284bed52d305fce615c6664d9",
	"scriptWriteForceRelease": "2e2cb2a3b13e2e80e4236ef6a25beaf365dba608",
	"scriptWriteRelease":      "d29c5559782035515d32e926762830b3304b49be",
}
