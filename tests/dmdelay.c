// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dmdelay - a device-mapper "delay" device over a block device, made with
 * the device-mapper ioctls (the shapes' guests have no dmsetup): reads
 * wait READ_MS, writes go straight through, so that mke2fs and the
 * creation of a file stay fast and every read from the device is slow.
 * Built for the tests (tests/shapes, the major-fault case), not a test.
 *
 *   dmdelay create NAME DEVICE READ_MS   prints the new device's path
 *   dmdelay remove NAME
 *
 * The table is dmsetup's
 *   0 SECTORS delay MAJ:MIN 0 READ_MS MAJ:MIN 0 0
 * Errors: one line on stderr and exit 1; usage errors (one line too)
 * exit 2.
 *
 * Copyright (C) 2026 The libfaultgen authors
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CONTROL "/dev/mapper/control"
/* Room for the dm_ioctl header, one target and its parameters. */
#define BUF_BYTES 4096

struct dm_buf {
	struct dm_ioctl io;
	char data[BUF_BYTES - sizeof(struct dm_ioctl)];
};

static void dm_init(struct dm_buf *b, const char *name)
{
	memset(b, 0, sizeof(*b));
	b->io.version[0] = DM_VERSION_MAJOR;
	b->io.version[1] = 0;
	b->io.version[2] = 0;
	b->io.data_size = sizeof(*b);
	b->io.data_start = sizeof(struct dm_ioctl);
	if (name)
		snprintf(b->io.name, sizeof(b->io.name), "%s", name);
}

/* One device-mapper ioctl; on failure one line naming it, and -1. */
static int dm_call(int fd, unsigned long req, const char *what,
		   struct dm_buf *b)
{
	if (ioctl(fd, req, b) == 0)
		return 0;
	fprintf(stderr, "dmdelay: %s '%s': %s\n", what, b->io.name,
		strerror(errno));
	return -1;
}

static int open_control(void)
{
	int fd = open(CONTROL, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "dmdelay: %s: %s (is dm-mod loaded?)\n",
			CONTROL, strerror(errno));
	return fd;
}

/* The device's number and its size in 512-byte sectors. */
static int device_of(const char *path, dev_t *dev, uint64_t *sectors)
{
	struct stat st;
	uint64_t bytes;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dmdelay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "dmdelay: %s: not a block device\n", path);
		goto out;
	}
	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
		fprintf(stderr, "dmdelay: %s: BLKGETSIZE64: %s\n", path,
			strerror(errno));
		goto out;
	}
	if (bytes < 512) {
		fprintf(stderr, "dmdelay: %s: empty device\n", path);
		goto out;
	}
	*dev = st.st_rdev;
	*sectors = bytes / 512;
	rc = 0;
out:
	close(fd);
	return rc;
}

/* DM_TABLE_LOAD's one target: delay over DEV, reads READ_MS late. */
static int load_table(int fd, const char *name, dev_t dev, uint64_t sectors,
		      unsigned int read_ms)
{
	struct dm_buf b;
	struct dm_target_spec *spec = (struct dm_target_spec *)b.data;
	char *params = b.data + sizeof(*spec);
	size_t room = sizeof(b.data) - sizeof(*spec);
	int n;

	dm_init(&b, name);
	b.io.target_count = 1;
	spec->sector_start = 0;
	spec->length = sectors;
	snprintf(spec->target_type, sizeof(spec->target_type), "delay");
	n = snprintf(params, room, "%u:%u 0 %u %u:%u 0 0", major(dev),
		     minor(dev), read_ms, major(dev), minor(dev));
	if (n < 0 || (size_t)n >= room) {
		fprintf(stderr, "dmdelay: the table of '%s' is too long\n", name);
		return -1;
	}
	spec->next = 0;
	return dm_call(fd, DM_TABLE_LOAD, "DM_TABLE_LOAD", &b);
}

static int remove_device(int fd, const char *name)
{
	struct dm_buf b;

	dm_init(&b, name);
	return dm_call(fd, DM_DEV_REMOVE, "DM_DEV_REMOVE", &b);
}

static int create(const char *name, const char *path, unsigned int read_ms)
{
	struct dm_buf b;
	uint64_t sectors;
	dev_t dev;
	int fd, rc = 1;

	if (device_of(path, &dev, &sectors) != 0)
		return 1;
	fd = open_control();
	if (fd < 0)
		return 1;
	dm_init(&b, name);
	if (dm_call(fd, DM_DEV_CREATE, "DM_DEV_CREATE", &b) != 0)
		goto out;
	if (load_table(fd, name, dev, sectors, read_ms) != 0)
		goto remove;
	/* DM_DEV_SUSPEND without DM_SUSPEND_FLAG resumes: the table goes live. */
	dm_init(&b, name);
	if (dm_call(fd, DM_DEV_SUSPEND, "DM_DEV_SUSPEND (resume)", &b) != 0)
		goto remove;
	/* devtmpfs names a mapped device after its minor number. */
	printf("/dev/dm-%u\n", minor(b.io.dev));
	rc = 0;
	goto out;
remove:
	remove_device(fd, name);
out:
	close(fd);
	return rc;
}

static int usage(const char *why)
{
	fprintf(stderr, "dmdelay: %s (usage: dmdelay create NAME DEVICE "
		"READ_MS | remove NAME)\n", why);
	return 2;
}

static int parse_ms(const char *s, unsigned int *ms)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > 60000)
		return -1;
	*ms = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int ms;
	int fd, rc;

	if (argc < 3)
		return usage("a command and a device name are needed");
	if (strlen(argv[2]) == 0 || strlen(argv[2]) >= DM_NAME_LEN ||
	    strchr(argv[2], '/'))
		return usage("bad device name (1 to 127 characters, no '/')");
	if (strcmp(argv[1], "create") == 0) {
		if (argc != 5)
			return usage("create takes NAME DEVICE READ_MS");
		if (parse_ms(argv[4], &ms) != 0)
			return usage("READ_MS is a number of milliseconds, 0 to 60000");
		return create(argv[2], argv[3], ms);
	}
	if (strcmp(argv[1], "remove") == 0 && argc == 3) {
		fd = open_control();
		if (fd < 0)
			return 1;
		rc = remove_device(fd, argv[2]) == 0 ? 0 : 1;
		close(fd);
		return rc;
	}
	return usage("unknown command or wrong arguments");
}
