package replication

import (
	"github.com/hashicorp/raft-wal/types"
)

// noSyncVFS is the WAL's file system without fsync (Config.NoSync): the
// log reaches the operating system with every batch, so it survives the
// crash of every lockkv process, but not the loss of a majority of
// machines before the OS wrote it out.
type noSyncVFS struct{ types.VFS }

func (v noSyncVFS) Create(dir, name string, size uint64) (types.WritableFile, error) {
	f, err := v.VFS.Create(dir, name, size)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (v noSyncVFS) OpenWriter(dir, name string) (types.WritableFile, error) {
	f, err := v.VFS.OpenWriter(dir, name)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

type noSyncFile struct{ types.WritableFile }

func (noSyncFile) Sync() error { return nil }
