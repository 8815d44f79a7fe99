// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * slowfs.c - the tests' own slow file system (FUSE, libfuse3): one
 * directory of files held in memory, which can be created, written,
 * read, truncated and removed, and whose reads wait --delay-ms=N
 * milliseconds each, as a slow device does.  direct_io stays off, so
 * that the kernel's page cache holds the files' pages (pft --cold has
 * something to drop, and each fault on a dropped page waits for a read).
 *
 *   slowfs -f [--delay-ms=N] MOUNTPOINT
 *
 * Run in the foreground (-f) under the test's control: the test
 * unmounts (fusermount3 -u) and kills it at its end.  A removed file
 * lives on while it is open (hard_remove: no .fuse_hidden names).
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 64
#define MAX_BYTES (1ULL << 30) /* all files together */

struct sfile {
	char name[256];
	char *data;
	size_t size;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	unsigned int opens;
	int linked; /* has its name in the directory */
	int used;
};

static struct sfile files[MAX_FILES];
static size_t bytes_held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	unsigned int delay_ms;
} opts;

static const struct fuse_opt opt_spec[] = {
	{ "--delay-ms=%u", offsetof(typeof(opts), delay_ms), 0 },
	FUSE_OPT_END
};

/* The file named path ("/name"), linked; NULL when none. */
static struct sfile *by_path(const char *path)
{
	if (!path || path[0] != '/')
		return NULL;
	for (int i = 0; i < MAX_FILES; i++)
		if (files[i].used && files[i].linked &&
		    strcmp(files[i].name, path + 1) == 0)
			return &files[i];
	return NULL;
}

/* The file of an open descriptor, or by its path. */
static struct sfile *file_of(const char *path, struct fuse_file_info *fi)
{
	if (fi && fi->fh < MAX_FILES && files[fi->fh].used)
		return &files[fi->fh];
	return by_path(path);
}

/* Frees a file that is neither named nor open. */
static void put_file(struct sfile *f)
{
	if (f->linked || f->opens)
		return;
	bytes_held -= f->size;
	free(f->data);
	memset(f, 0, sizeof(*f));
}

static void *sfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 0;
	cfg->kernel_cache = 1;
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 1;
	return NULL;
}

static int sfs_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	struct sfile *f;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (path && strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 01777;
		st->st_nlink = 2;
		return 0;
	}
	pthread_mutex_lock(&lock);
	f = file_of(path, fi);
	if (!f) {
		ret = -ENOENT;
	} else {
		st->st_mode = S_IFREG | (f->mode & 07777);
		st->st_nlink = f->linked ? 1 : 0;
		st->st_size = (off_t)f->size;
		st->st_blocks = (blkcnt_t)((f->size + 511) / 512);
		st->st_uid = f->uid;
		st->st_gid = f->gid;
		st->st_ino = (ino_t)(f - files) + 2;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	/* nullpath_ok: the one directory's path may come as NULL. */
	if (path && strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_FILES; i++)
		if (files[i].used && files[i].linked)
			fill(buf, files[i].name, NULL, 0, 0);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int sfs_create(const char *path, mode_t mode,
		      struct fuse_file_info *fi)
{
	struct fuse_context *ctx = fuse_get_context();
	int ret = -ENOSPC;

	if (strchr(path + 1, '/') || strlen(path + 1) >= sizeof(files[0].name))
		return -EINVAL;
	pthread_mutex_lock(&lock);
	if (by_path(path)) {
		ret = -EEXIST;
		goto out;
	}
	for (int i = 0; i < MAX_FILES; i++) {
		if (files[i].used)
			continue;
		files[i] = (struct sfile){ .mode = mode, .uid = ctx->uid,
					   .gid = ctx->gid, .opens = 1,
					   .linked = 1, .used = 1 };
		strcpy(files[i].name, path + 1);
		fi->fh = (uint64_t)i;
		ret = 0;
		break;
	}
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_open(const char *path, struct fuse_file_info *fi)
{
	struct sfile *f;
	int ret = -ENOENT;

	pthread_mutex_lock(&lock);
	f = by_path(path);
	if (f) {
		f->opens++;
		fi->fh = (uint64_t)(f - files);
		ret = 0;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_release(const char *path, struct fuse_file_info *fi)
{
	struct sfile *f;

	pthread_mutex_lock(&lock);
	f = file_of(path, fi);
	if (f && f->opens) {
		f->opens--;
		put_file(f);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Each read waits, outside the lock: reads of several threads wait
 * together, as requests to a device queue do. */
static int sfs_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct timespec ts = { opts.delay_ms / 1000,
			       (long)(opts.delay_ms % 1000) * 1000000L };
	struct sfile *f;
	int ret;

	if (opts.delay_ms)
		nanosleep(&ts, NULL);
	pthread_mutex_lock(&lock);
	f = file_of(path, fi);
	if (!f) {
		ret = -ENOENT;
	} else if ((size_t)off >= f->size) {
		ret = 0;
	} else {
		if (size > f->size - (size_t)off)
			size = f->size - (size_t)off;
		memcpy(buf, f->data + off, size);
		ret = (int)size;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

/* The file's size set to len, new bytes zero; under the lock. */
static int resize(struct sfile *f, size_t len)
{
	char *p;

	if (len > f->size && len - f->size > MAX_BYTES - bytes_held)
		return -ENOSPC;
	p = realloc(f->data, len ? len : 1);
	if (!p)
		return -ENOSPC;
	if (len > f->size)
		memset(p + f->size, 0, len - f->size);
	bytes_held = bytes_held - f->size + len;
	f->data = p;
	f->size = len;
	return 0;
}

static int sfs_write(const char *path, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	struct sfile *f;
	int ret = 0;

	pthread_mutex_lock(&lock);
	f = file_of(path, fi);
	if (!f)
		ret = -ENOENT;
	else if ((size_t)off + size > f->size)
		ret = resize(f, (size_t)off + size);
	if (!ret) {
		memcpy(f->data + off, buf, size);
		ret = (int)size;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_truncate(const char *path, off_t len,
			struct fuse_file_info *fi)
{
	struct sfile *f;
	int ret;

	if (len < 0)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	f = file_of(path, fi);
	ret = f ? resize(f, (size_t)len) : -ENOENT;
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_unlink(const char *path)
{
	struct sfile *f;
	int ret = -ENOENT;

	pthread_mutex_lock(&lock);
	f = by_path(path);
	if (f) {
		f->linked = 0;
		put_file(f);
		ret = 0;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int sfs_fsync(const char *path, int datasync,
		     struct fuse_file_info *fi)
{
	(void)path, (void)datasync, (void)fi;
	return 0;
}

static int sfs_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = MAX_BYTES / 4096;
	pthread_mutex_lock(&lock);
	sv->f_bfree = sv->f_bavail = (MAX_BYTES - bytes_held) / 4096;
	pthread_mutex_unlock(&lock);
	sv->f_files = sv->f_ffree = MAX_FILES;
	sv->f_namemax = sizeof(files[0].name) - 1;
	return 0;
}

static const struct fuse_operations sfs_ops = {
	.init = sfs_init,
	.getattr = sfs_getattr,
	.readdir = sfs_readdir,
	.create = sfs_create,
	.open = sfs_open,
	.release = sfs_release,
	.read = sfs_read,
	.write = sfs_write,
	.truncate = sfs_truncate,
	.unlink = sfs_unlink,
	.fsync = sfs_fsync,
	.statfs = sfs_statfs,
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	int ret;

	if (fuse_opt_parse(&args, &opts, opt_spec, NULL) < 0)
		return 2;
	ret = fuse_main(args.argc, args.argv, &sfs_ops, NULL);
	fuse_opt_free_args(&args);
	return ret;
}
