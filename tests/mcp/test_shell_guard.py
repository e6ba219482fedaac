"""run_shell's guard: every command line gets one of three verdicts, and the reason names the
real target. The inputs of issues #14 (item 3) and #26 (items 1-2) are all here."""

from __future__ import annotations

import pytest

from adbwire.device.errors import RefusedError
from adbwire.mcp.safety.shell_commands import FORMATTERS, INERT
from adbwire.mcp.safety.shell_guard import (
    MAX_NESTING,
    MAX_PLACES,
    MAX_REASON,
    Verdict,
    assess,
    check_command,
)
from adbwire.mcp.safety.shell_rules import _FIND_NARROWING
from adbwire.mcp.safety.shell_wrappers import _SU_VALUES, WRAPPERS

# (command line, a reason it must give): catastrophic for sure, never run.
REFUSED = [
    # issue #14 item 3
    ("cd /sdcard; rm -rf *", "recursive deletion of / or /sdcard (as '*')"),
    ("cd /sdcard && rm -rf *", "recursive deletion of /sdcard (as '*')"),
    ("find /sdcard -exec rm -rf {} +", "find -exec over /sdcard"),
    ("rm -rf /data/media/0", "recursive deletion of /data/media/0"),
    ("rm -rf /data/user/0", "recursive deletion of /data/user/0"),
    ("rm -rf ~", "recursive deletion of / (as '~')"),
    ("rm -rf ~/", "recursive deletion of / (as '~/')"),
    ("rm -rf /mnt/sdcard", "recursive deletion of /mnt/sdcard"),
    ("mv /sdcard /data/local/tmp/old", "moving away /sdcard"),
    ("mv -t /data/local/tmp /storage/emulated/0", "moving away /storage/emulated/0"),
    ("sm format disk:179,0", "sm format"),
    ("sm partition disk:179,0 private", "sm partition"),
    ("sm forget all", "sm forget"),
    ("vdc volume format public:179,1 auto", "vdc volume format"),
    ("vdc --wait volume partition disk:179,0 public", "vdc volume partition"),
    ("cd /sdcard && rm -rf .", "recursive deletion of /sdcard (as '.')"),
    # issue #26 item 1: wrappers around a shell, and what they wrap
    ('busybox sh -c "rm -rf /"', "recursive deletion of /"),
    ('nohup sh -c "rm -rf /"', "recursive deletion of /"),
    ('env sh -c "rm -rf /sdcard"', "recursive deletion of /sdcard"),
    ('toybox sh -c "rm -rf /data"', "recursive deletion of /data"),
    ("/system/bin/toybox rm -rf /", "recursive deletion of /"),
    ("su shell rm -rf /", "recursive deletion of /"),
    ("su 0 rm -rf /data", "recursive deletion of /data"),
    ("su -c 'rm -rf /'", "recursive deletion of /"),
    ("su root -c 'rm -rf /system'", "recursive deletion of /system"),
    ("su --command='rm -rf /vendor'", "recursive deletion of /vendor"),
    ("su -s /system/bin/sh 0 rm -rf /odm", "recursive deletion of /odm"),
    ("sudo -u root rm -rf /", "recursive deletion of /"),
    ("sudo X=1 rm -rf /cache", "recursive deletion of /cache"),
    ("busybox rm -rf /data", "recursive deletion of /data"),
    ("exec rm -rf /data/data", "recursive deletion of /data/data"),
    ("exec -a name rm -rf /data/app", "recursive deletion of /data/app"),
    ("time rm -rf /system", "recursive deletion of /system"),
    ("time -p rm -rf /system", "recursive deletion of /system"),
    ("command rm -rf /apex", "recursive deletion of /apex"),
    ("builtin cd /sdcard && rm -rf .", "recursive deletion of /sdcard"),
    ("X=1 Y=2 rm -rf /system_ext", "recursive deletion of /system_ext"),
    ("env -i PATH=/x rm -rf /odm", "recursive deletion of /odm"),
    ("env -u PATH rm -rf /odm", "recursive deletion of /odm"),
    ("env -C /sdcard rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("env --chdir /sdcard rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("nice -n 5 rm -rf /vendor", "recursive deletion of /vendor"),
    ("nice -19 rm -rf /vendor", "recursive deletion of /vendor"),
    ("ionice -c 3 rm -rf /vendor", "recursive deletion of /vendor"),
    ("timeout 5 rm -rf /system", "recursive deletion of /system"),
    ("timeout -s KILL 5 rm -rf /system", "recursive deletion of /system"),
    ("timeout --signal=KILL 5 rm -rf /system", "recursive deletion of /system"),
    ("xargs rm -rf /sdcard", "recursive deletion of /sdcard"),
    ("xargs -n 1 rm -rf /sdcard", "recursive deletion of /sdcard"),
    ("runcon u:r:su:s0 rm -rf /data", "recursive deletion of /data"),
    ("setsid rm -rf /data", "recursive deletion of /data"),
    ("stdbuf -o 0 rm -rf /data", "recursive deletion of /data"),
    ("taskset 3 rm -rf /data", "recursive deletion of /data"),
    ("nohup busybox env toybox rm -rf /data", "recursive deletion of /data"),
    ("mksh -c 'rm -rf /'", "recursive deletion of /"),
    ("bash -ec 'rm -rf /'", "recursive deletion of /"),
    ("bash --norc -c 'rm -rf /'", "recursive deletion of /"),
    ("sh -o errexit -c 'rm -rf /'", "recursive deletion of /"),
    ("/system/bin/sh -c 'cd /sdcard && rm -rf .'", "recursive deletion of /sdcard"),
    ("sh -c \"sh -c 'rm -rf /data'\"", "recursive deletion of /data"),
    ("logwrapper rm -rf /", "recursive deletion of /"),
    ("find -name x -delete; rm -rf /", "recursive deletion of /"),
    # issue #26 item 2: formatters, device nodes, more partitions
    ("blkdiscard /dev/block/mmcblk0", "formatting or partitioning storage (blkdiscard)"),
    ("mke2fs -t ext4 /dev/block/sda1", "formatting or partitioning storage (mke2fs)"),
    ("newfs_msdos -F 32 /dev/block/vold/public:179,1", "(newfs_msdos)"),
    ("mkfs.ext4 /dev/block/sda", "formatting or partitioning storage (mkfs.ext4)"),
    ("mkfs.f2fs /dev/block/sda", "(mkfs.f2fs)"),
    ("make_ext4fs /dev/block/mmcblk0p1", "(make_ext4fs)"),
    ("sgdisk --zap-all /dev/block/sda", "(sgdisk)"),
    ("/system/bin/wipe data", "(wipe)"),
    ("dd if=/dev/zero of=/dev/mtd0", "raw write to the device node /dev/mtd0"),
    ("dd if=/dev/zero of=/dev/block/mmcblk0", "raw write to the device node /dev/block/mmcblk0"),
    ("dd if=/dev/zero of=/dev/mmcblk0 bs=4096", "raw write to the device node /dev/mmcblk0"),
    ("dd if=/dev/zero of=/dev/sda", "raw write to the device node /dev/sda"),
    ("dd if=x of=/dev/block/../block/sda", "raw write to the device node /dev/block/sda"),
    ("cd /dev/block && dd if=x of=sda", "raw write to the device node /dev/block/sda"),
    ("cat x > /dev/block/sda1", "raw write to the device node /dev/block/sda1"),
    ("cat x >> /dev/block/by-name/userdata", "raw write to the device node"),
    ("cat x 1<>/dev/mtdblock2", "raw write to the device node /dev/mtdblock2"),
    ("echo x >| /dev/nvme0n1", "raw write to the device node /dev/nvme0n1"),
    ("echo x >&/dev/dm-0", "raw write to the device node /dev/dm-0"),
    ("exec 3>/dev/mem", "raw write to the device node /dev/mem"),
    ("(echo x) > /dev/vda", "raw write to the device node /dev/vda"),
    ("tee /dev/block/sda < x", "raw write to the device node /dev/block/sda"),
    ("truncate -s 0 /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ("shred /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ("cp image.img /dev/block/by-name/boot", "raw write to the device node"),
    ("cp -t /dev/block/sda image.img", "raw write to the device node /dev/block/sda"),
    ("install x /dev/ubi0", "raw write to the device node /dev/ubi0"),
    ("mv x /dev/mapper/userdata", "raw write to the device node /dev/mapper/userdata"),
    ("find / -name x -fprint /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ("rm -rf /product", "recursive deletion of /product"),
    # factory reset
    ("am broadcast -a android.intent.action.FACTORY_RESET", "factory reset (FACTORY_RESET)"),
    ("am broadcast -a android.intent.action.MASTER_CLEAR", "factory reset (MASTER_CLEAR)"),
    ("recovery --wipe_data", "factory reset (--wipe_data)"),
    ("am broadcast -a android.intent.action.FACTORY_'RESET'", "factory reset (FACTORY_RESET)"),
    ("echo --wipe_data > /cache/recovery/command", "factory reset (--wipe_data)"),
    ("X=--wipe_data; echo $X", "factory reset (--wipe_data)"),
    # spellings of a whole area
    ("rm -rf /", "recursive deletion of /"),
    ("rm -rf /*", "recursive deletion of / (as '/*')"),
    ("rm -rf /*/*", "recursive deletion of / (as '/*/*')"),
    ("rm -fr /sdcard/", "recursive deletion of /sdcard (as '/sdcard/')"),
    ("rm -r -f /data", "recursive deletion of /data"),
    ("rm -R /data", "recursive deletion of /data"),
    ("rm --recursive /storage", "recursive deletion of /storage"),
    ("rm /data -rf", "recursive deletion of /data"),
    ("rm -r -- /x", "recursive deletion of /x"),
    ("rm -r -- -x", "recursive deletion of /-x (as '-x')"),
    ("rm -rf /sdcard/*", "recursive deletion of /sdcard (as '/sdcard/*')"),
    ("rm -rf /sdcard/.", "recursive deletion of /sdcard (as '/sdcard/.')"),
    ("rm -rf /sdcard/./", "recursive deletion of /sdcard"),
    ("rm -rf //data", "recursive deletion of /data (as '//data')"),
    ("rm -rf /a/../sdcard/", "recursive deletion of /sdcard (as '/a/../sdcard/')"),
    ("rm -rf /storage/emulated/0", "recursive deletion of /storage/emulated/0"),
    ("rm -rf /storage/emulated/0/*", "recursive deletion of /storage/emulated/0"),
    ("rm -rf /storage/emulated/10", "recursive deletion of /storage/emulated/10"),
    ("rm -rf /storage/emulated", "recursive deletion of /storage/emulated"),
    ("rm -rf /storage/self/primary", "recursive deletion of /storage/self/primary"),
    ("rm -rf /storage/ABCD-1234", "recursive deletion of /storage/ABCD-1234"),
    ("rm -rf /mnt/user/0/primary", "recursive deletion of /mnt/user/0/primary"),
    ("rm -rf /mnt/user/0/emulated/0", "recursive deletion of /mnt/user/0/emulated/0"),
    ("rm -rf /mnt/runtime/default/emulated/0", "/mnt/runtime/default/emulated/0"),
    ("rm -rf /mnt/runtime/write/self/primary", "/mnt/runtime/write/self/primary"),
    ("rm -rf /mnt/pass_through/0/emulated/0", "/mnt/pass_through/0/emulated/0"),
    ("rm -rf /mnt/installer/0/emulated/0", "/mnt/installer/0/emulated/0"),
    ("rm -rf /mnt/androidwritable/0/emulated/0", "/mnt/androidwritable/0/emulated/0"),
    ("rm -rf /mnt/shell/emulated/0", "recursive deletion of /mnt/shell/emulated/0"),
    ("rm -rf /mnt/media_rw/ABCD-1234", "recursive deletion of /mnt/media_rw/ABCD-1234"),
    ("rm -rf /mnt/expand/1234", "recursive deletion of /mnt/expand/1234"),
    ("rm -rf /data/user_de/0", "recursive deletion of /data/user_de/0"),
    ("rm -rf /data/misc_ce/0", "recursive deletion of /data/misc_ce/0"),
    ("rm -rf /data/misc_de/0", "recursive deletion of /data/misc_de/0"),
    ("rm -rf /data/system_ce/0", "recursive deletion of /data/system_ce/0"),
    ("rm -rf /data/system_de/0", "recursive deletion of /data/system_de/0"),
    ("rm -rf /data/vendor_ce/0", "recursive deletion of /data/vendor_ce/0"),
    ("rm -rf /data/vendor_de/0", "recursive deletion of /data/vendor_de/0"),
    ("rm -rf /data/local", "recursive deletion of /data/local"),
    ("rm -r /system/app", "recursive deletion of /system/app"),
    ("rm -r /system_ext/priv-app", "recursive deletion of /system_ext/priv-app"),
    ("rm -r /vendor/lib", "recursive deletion of /vendor/lib"),
    ("rm -r /product/app", "recursive deletion of /product/app"),
    ("rm -r /odm/etc", "recursive deletion of /odm/etc"),
    ("rm -r /apex/com.android.art", "recursive deletion of /apex/com.android.art"),
    ("rm -r /dev/block", "recursive deletion of /dev/block"),
    ("rm -rf '/sdcard'", "recursive deletion of /sdcard"),
    ('rm -rf "/sd"card', "recursive deletion of /sdcard"),
    ("rm -rf /sd\\card", "recursive deletion of /sdcard"),
    ('r"m" -rf /data', "recursive deletion of /data"),
    ("\\rm -rf /data", "recursive deletion of /data"),
    ("cd / && rm -rf data", "recursive deletion of /data (as 'data')"),
    ("cd /storage/emulated && rm -rf 0", "recursive deletion of /storage/emulated/0 (as '0')"),
    ("cd /sdcard/Download && rm -rf ..", "recursive deletion of /sdcard (as '..')"),
    ("cd /sdcard/Download/.. && rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("cd /sdcard && cd Download && rm -rf ../*", "recursive deletion of /sdcard (as '../*')"),
    ("cd && rm -rf data", "recursive deletion of /data (as 'data')"),
    ("cd ~ && rm -rf data", "recursive deletion of /data (as 'data')"),
    ("cd -P /sdcard && rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("chdir /sdcard && rm -rf .", "recursive deletion of /sdcard"),
    ("cd /sdcard && find . -delete", "find -delete over /sdcard (as '.')"),
    ("find /sdcard/ -delete", "find -delete over /sdcard (as '/sdcard/')"),
    ("find -L /data -delete", "find -delete over /data"),
    ("find -delete", "find -delete over / (as '.')"),
    ("find / -type f -delete", "find -delete over /"),
    ("find /sdcard -exec mv {} /x \\;", "find -exec over /sdcard"),
    ("find /sdcard -exec /system/bin/rm -rf {} \\;", "find -exec over /sdcard"),
    ("find /sdcard -exec rm -rf / \\;", "recursive deletion of /"),
    ("cd /x || exit; rm -rf *", "recursive deletion of /x (as '*')"),
    ("cd /x || return; rm -rf *", "recursive deletion of /x (as '*')"),
    ("echo $(rm -rf /)", "recursive deletion of /"),
    ("echo `rm -rf /data`", "recursive deletion of /data"),
    ('echo "$(rm -rf /data)"', "recursive deletion of /data"),
    ("echo $((1 + $(rm -rf /data)))", "recursive deletion of /data"),
    ("echo ${X:-$(rm -rf /data)}", "recursive deletion of /data"),
    ("X=$(rm -rf /data) true", "recursive deletion of /data"),
    ("echo x > $(rm -rf /data)", "recursive deletion of /data"),
    ("for f in $(rm -rf /data); do :; done", "recursive deletion of /data"),
    ("eval rm -rf /sdcard", "recursive deletion of /sdcard"),
    ("eval 'cd /sdcard'; rm -rf .", "recursive deletion of / or /sdcard (as '.')"),
    ("eval 'cd /sdcard' && rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("rm -r cache_dir", "recursive deletion of /cache_dir (as 'cache_dir')"),
    ("env -S 'rm -rf /data'", "recursive deletion of /data"),
    ("trap 'rm -rf /data' EXIT", "recursive deletion of /data"),
    ("echo hi; rm --recursive -f /storage", "recursive deletion of /storage"),
    ("true && rm -rf /data || true", "recursive deletion of /data"),
    ("false || rm -rf /data", "recursive deletion of /data"),
    ("! rm -rf /data", "recursive deletion of /data"),
    ("ls | rm -rf /data", "recursive deletion of /data"),
    ("rm -rf /data &", "recursive deletion of /data"),
    ("(rm -rf /data)", "recursive deletion of /data"),
    ("{ rm -rf /data; }", "recursive deletion of /data"),
    ("if rm -rf /data; then :; fi", "recursive deletion of /data"),
    ("if true; then rm -rf /data; fi", "recursive deletion of /data"),
    ("if false; then :; elif true; then rm -rf /data; fi", "recursive deletion of /data"),
    ("if false; then :; else rm -rf /data; fi", "recursive deletion of /data"),
    ("while true; do rm -rf /data; done", "recursive deletion of /data"),
    ("until rm -rf /data; do :; done", "recursive deletion of /data"),
    ("for x in a; do rm -rf /data; done", "recursive deletion of /data"),
    ("rm -rf /data\nls", "recursive deletion of /data"),
    ("cd -L /sdcard && rm -rf .", "recursive deletion of /sdcard (as '.')"),
    ("cp --target-directory=/dev/block/sda x.img", "raw write to the device node /dev/block/sda"),
    ("cd /sdcard && dd if=x of=/dev/mtd0", "raw write to the device node /dev/mtd0"),
    ("find / -fls /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ("find / -fprint0 /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ("find / -fprintf /dev/block/sda %p", "raw write to the device node /dev/block/sda"),
    ("vdc volume forget_partition x", "vdc volume forget_partition"),
    ("ash -c 'rm -rf /'", "recursive deletion of /"),
    ("dash -c 'rm -rf /'", "recursive deletion of /"),
    ("ksh -c 'rm -rf /'", "recursive deletion of /"),
    ("zsh -c 'rm -rf /'", "recursive deletion of /"),
    ("hush -c 'rm -rf /'", "recursive deletion of /"),
    ("su --command=ls 0 rm -rf /data", "recursive deletion of /data"),
    ("env --chdir='/sd*' rm -rf .", "recursive deletion of /sd* (as '.')"),
    # issue #22: functions, case and here-documents are read like any other command
    ("f() { rm -rf /; }", "recursive deletion of /"),
    ("function f { rm -rf /data; }", "recursive deletion of /data"),
    ("f() (rm -rf /sdcard)", "recursive deletion of /sdcard"),
    ("f() { cd /sdcard; }; f; rm -rf *", "recursive deletion of / or /sdcard (as '*')"),
    ("false && rm() { :; }; rm -rf /", "recursive deletion of /"),
    ("case x in a) rm -rf /;; esac", "recursive deletion of /"),
    ("case $x in a) cd /sdcard;; esac; rm -rf *", "recursive deletion of / or /sdcard"),
    ("case $(rm -rf /) in *) ;; esac", "recursive deletion of /"),
    ("case x in $(rm -rf /)) ;; esac", "recursive deletion of /"),
    ("sh <<EOF\nrm -rf /\nEOF", "recursive deletion of /"),
    ("sh <<-'EOF'\n\trm -rf /data\n\tEOF", "recursive deletion of /data"),
    ("cat <<EOF | sh\nrm -rf /sdcard\nEOF", "recursive deletion of /sdcard"),
    ("su <<EOF\nrm -rf /data/media/0\nEOF", "recursive deletion of /data/media/0"),
    ("su 0 sh <<EOF\nrm -rf /odm\nEOF", "recursive deletion of /odm"),
    ("cat <<EOF\n$(rm -rf /)\nEOF", "recursive deletion of /"),
    ("echo ${x:+$(rm -rf /)}", "recursive deletion of /"),
    ("echo ${x%$(rm -rf /)}", "recursive deletion of /"),
    ("echo ${x:=`rm -rf /`}", "recursive deletion of /"),
    ("echo ${x/$(rm -rf /)/}", "recursive deletion of /"),
    ("echo ${x//a/$(rm -rf /data)}", "recursive deletion of /data"),
    ("echo ${x:$(rm -rf /):1}", "recursive deletion of /"),
    ("echo ${x:0:$(rm -rf /)}", "recursive deletion of /"),
    ("[[ -n $(rm -rf /) ]]", "recursive deletion of /"),
    ("[[ x == $(rm -rf /data) && -d / ]] && echo", "recursive deletion of /data"),
    ("echo x &> /dev/block/sda", "raw write to the device node /dev/block/sda"),
    ('sh <<< "rm -rf /"', "recursive deletion of /"),
    ('cat <<< "rm -rf /data" | sh', "recursive deletion of /data"),
    ("cat <<< $(rm -rf /sdcard)", "recursive deletion of /sdcard"),
]

# (command line, a reason it must give): the guard cannot know; asked every time.
ASKED = [
    # issue #14 item 3
    ("rm -rf /sdc?rd/*", "recursive deletion of /sdc?rd/*, a glob that may match a protected"),
    ("rm -rf /sd*", "recursive deletion of /sd*, a glob that may match a protected path"),
    ("rm -rf /[d]ata", "recursive deletion of /[d]ata, a glob that may match"),
    ("rm -rf /storage/*/0", "a glob that may match a protected path"),
    ("rm -rf /data/*/0", "a glob that may match a protected path"),
    ("rm -rf /mnt/user/?/primary", "a glob that may match a protected path"),
    ("rm -rf $(echo /sdcard)", "recursive deletion of $(echo /sdcard), a path only known"),
    ("rm -rf `echo /sdcard`", "recursive deletion of $(echo /sdcard), a path only known"),
    ("rm -rf$IFS/", "rm -rf${IFS}/: an argument only known when the line runs"),
    ("rm -rf /sdcard/Download/tmp $VAR", "recursive deletion of ${VAR}, a path only known"),
    ("rm $FLAGS /sdcard", "rm ${FLAGS}: an argument only known when the line runs"),
    ("rm -rf ${EXTERNAL_STORAGE}", "recursive deletion of ${EXTERNAL_STORAGE}"),
    ("rm -rf /{sdcard,x}", "recursive deletion of /{sdcard,x}, a path only known"),
    ("rm -rf ~shell", "recursive deletion of ~shell, a path only known when the line runs"),
    ("rm -rf ~/foo/bar", "recursive deletion of ~/foo/bar: the guard does not know the home"),
    ("rm -rf /sdcard/../x/y", "recursive deletion of /sdcard/../x/y: the device follows '..'"),
    ("printf 'rm -rf /' | sh", "sh runs commands the guard cannot see"),
    ("echo cm0gLXJmIC8K | base64 -d | sh", "sh runs commands the guard cannot see"),
    ("cat x | su", "su starts a shell that reads commands from its input"),
    ("su", "su starts a shell that reads commands from its input"),
    ("su 0", "su starts a shell that reads commands from its input"),
    ("sh /sdcard/script.sh", "sh runs commands the guard cannot see"),
    ("sh < /sdcard/script.sh", "sh runs commands the guard cannot see"),
    ("bash -x", "bash runs commands the guard cannot see"),
    ("sh -c", "sh runs commands the guard cannot see"),
    (". /sdcard/env.sh", ". runs commands from a file the guard cannot see"),
    ("source /sdcard/env.sh", "source runs commands from a file the guard cannot see"),
    ("sh -c 'ls /sdcard'", "sh -c runs a command line given as a string"),
    ('sh -c "$CMD"', "sh -c ${CMD}: a command line only known when the line runs"),
    ("su -c 'ls'", "su -c runs a command line given as a string"),
    ("su -c", "su -c <names the device supplies>: a command line only known"),
    ('su -c "$X"', "su -c ${X}: a command line only known when the line runs"),
    ("eval ls", "eval runs a string as a command line"),
    ("eval $X", "eval of a value only known when the line runs"),
    ("env -S", "env -S <names the device supplies>: a command line only known"),
    ("trap 'ls' EXIT", "trap runs a string as a command line later"),
    ("alias ll='ls -l'", "alias defines a command the guard cannot follow"),
    ("find /sdcard -name x -exec rm -rf {} +", "find -exec runs a command on files only the"),
    ("find /sdcard -name '*.tmp' -delete", "find -delete deletes files only the device knows"),
    ("find -name x -delete", "find -delete deletes files only the device knows"),
    ("find /sdcard/Download -exec ls {} \\;", "find -exec runs a command on files only"),
    ("find /sdcard -name x -execdir rm -rf {} +", "find -execdir runs a command on files"),
    ("find /sdcard -name x -ok rm {} \\;", "find -ok runs a command on files only"),
    ("find . | xargs rm -rf", "xargs runs a command on words only the device knows"),
    ("find . | xargs rm -rf", "recursive deletion of <names the device supplies>"),
    ("cd /sdcard/Download; rm -rf *", "recursive deletion of / if a cd before it fails"),
    ("cd /sdcard/Download; rm -rf ./x/..", "recursive deletion of / if a cd before it fails"),
    ("cd $DIR && rm -rf x", "recursive deletion of x in a directory only known"),
    ("cd /sd* && rm -rf x", "recursive deletion of x in a directory only known"),
    ("cd - && rm -rf x", "recursive deletion of x in a directory only known"),
    ("run-as com.example rm -rf x", "recursive deletion of x in a directory only known"),
    ("chroot /x rm -rf y", "recursive deletion of y in a directory only known"),
    ("find /data/local/tmp -execdir rm -rf y \\;", "recursive deletion of y in a directory"),
    ("$X -rf /", "the command name ${X} is only known when the line runs"),
    ("$(echo rm) -rf /", "the command name $(echo rm) is only known when the line runs"),
    ("/system/bin/r? -rf /", "the command name /system/bin/r? is only known"),
    ("for d in a b; do cd $d; rm -rf x; done", "recursive deletion of x in a directory only"),
    ("cd /data/local/tmp || exit; while true; do cd y; rm -rf x; done", "x in a directory only"),
    ("cd /sdcard/Download && rm -rf ./x/../y", "deletion of ./x/../y: the device follows '..'"),
    ("echo x > $OUT", "writes to ${OUT}, a name only known when the line runs"),
    ("echo x > /dev/block/sd*", "writes to /dev/block/sd*, a glob the device expands"),
    ("cd $D; echo x > sda", "writes to sda in a directory only known when the line runs"),
    ("cd /dev/block; echo x > sda", "raw write to the device node /dev/block/sda if a cd"),
    ("dd if=/dev/zero of=$DEV", "dd of=${DEV}: an argument only known when the line runs"),
    ("sm $OP disk:179,0", "sm with a subcommand only known when the line runs"),
    ("vdc volume $OP public:179,1", "vdc with a subcommand only known when the line runs"),
    ("echo 'unterminated", "the guard cannot read the command line (no closing quote)"),
    ("cat <<EOF", "the guard cannot read the command line (here document 'EOF' unclosed)"),
    ("sh <<EOF\nrm -rf $D\nEOF", "sh reads a here-document only known when the line runs"),
    ("sh <<EOF\nls\nEOF", "sh runs the commands of a here-document"),
    ("cat <<EOF | sh\nls\nEOF", "sh runs the commands of a here-document"),
    ("cat x <<EOF | sh\nls\nEOF", "sh runs commands the guard cannot see"),
    ("f() { rm -rf $1; }; f /", "recursive deletion of ${1}, a path only known"),
    ("case x a) ls;; esac", "the guard cannot read the command line"),
    ("echo ${a b}", "the guard cannot read the command line (${a b}: bad substitution)"),
    ("echo ${X:-$(}", "the guard cannot read the command line"),
    (
        "( " * 3000 + "echo" + " )" * 3000,
        "cannot read the command line (commands nested too deeply)",
    ),
    ("eval " * (MAX_NESTING + 2) + "rm -rf /", f"nested more than {MAX_NESTING} levels deep"),
    ("find /data/local/tmp -fprintf /sdcard/x fmt -delete", "find -delete deletes files"),
    ("find /data/local/tmp ! -type d -delete", "find -delete deletes files"),
    *(
        (f"find / {test} x -delete", "find -delete deletes files only the device knows")
        for test in sorted(_FIND_NARROWING)
    ),
]

ORDINARY = [
    "f() { ls; }; f",
    "f() { f; }; f",
    "function g { echo $1; }; g x",
    "case $1 in -h|--help) echo usage;; *) ls /sdcard;; esac",
    "cat <<EOF\nrm -rf /\nEOF",
    "cat <<'EOF' > /sdcard/notes.txt\n$(rm -rf /)\nEOF",
    "echo ${x%.*} ${x##*/} ${#x} ${x:-default} ${x/a/b} ${x:1:2}",
    "[[ -d /sdcard && $x == *.txt ]] && ls /sdcard &> /dev/null",
    'read a b <<< "rm -rf /"',
    "local x=1; ulimit -n; getopts ab: o; shift; typeset y=2",
    "ls -l /sdcard",
    "ls -R /",
    "rm /sdcard/Download/x.txt",
    "rm -f /sdcard/*",
    "rm /data",
    "rm -rf /sdcard/Download/tmpdir",
    "rm -rf /sdcard/Download/*",
    "rm -rf /sdcard/Download/*.tmp",
    "rm -rf /storage/emulated/0/Download",
    "rm -rf /data/local/tmp/build",
    "rm -rf /data/local/tmp/*",
    "rm -rf /data/data/com.example.notes",
    "rm -rf /sdcard/a[",
    "[ -f /sdcard/x ] && rm /sdcard/x",  # the test command is not a glob
    "[ -d /data/local/tmp/x ] && rm -rf /data/local/tmp/x",
    "rm -rf '/sdcard/*'",  # a file named '*'
    "rm -rf /sdcard/\\*",
    "cd /sdcard/Download && rm -rf *",
    "cd /sdcard/Download || exit 1; rm -rf *",
    "cd /data/local/tmp; cd build && rm -rf obj",
    "(cd /sdcard/Download && rm -rf *)",
    "mv /sdcard/Download/a /sdcard/Download/b",
    "cp /sdcard/a /sdcard/b",
    "dd if=/dev/block/sda of=/sdcard/backup.img",
    "dd if=/sdcard/a of=/sdcard/b",
    "cat /dev/block/sda > /sdcard/copy.img",
    "echo x > /dev/null 2>&1",
    "echo x >&2",
    "echo x 2>&-",
    "tee /sdcard/log.txt",
    'echo "rm -rf /"',
    "echo 'rm -rf /' > /sdcard/note.txt",
    "echo rm -rf / is dangerous",
    "grep -r foo /system/etc",
    "grep -r rm -rf /system/etc",
    "find /sdcard/x -name '*.tmp'",
    "find /sdcard -name '*.tmp' -print",
    "echo $(date) $HOME",
    "ls /sdcard/*",
    'for a in 0 1 2; do echo "line $a"; done',
    "getprop ro.product.model",
    "pm list packages com.example",
    "am start -n com.example/.Main",
    "command -v rm",
    "command -V rm",
    "busybox",
    "busybox --list",
    "toybox",
    "nohup",
    "exec 2>/dev/null",
    "sm list-volumes",
    "vdc volume list",
    "vdc cryptfs getpw",
    "timeout 5 ls /",
    "env",
    "env FOO=1 ls",
    "X=1",
    "true",
    "",
    "# rm -rf /",
    "exit; rm -rf *",
    "for x; do ls; done",
    "logwrapper ls /",
    "mystery tool arguments",
    "cp -r /sdcard /data/local/tmp/backup",
    "truncate -r /dev/block/sda /sdcard/x",
    "find -L",
    "find /sdcard",
    "nice -n",
    "su -Z u:r:su:s0 rm -rf /odm",  # the first word after su's options is the user: 'rm'
    "su --shell /x rm -rf /odm",
]


@pytest.mark.parametrize(("command", "reason"), REFUSED, ids=[c for c, _ in REFUSED])
def test_catastrophic_lines_are_refused_naming_the_target(command: str, reason: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.REFUSE, assessment
    assert any(reason in given for given in assessment.reasons), assessment.reasons


@pytest.mark.parametrize(("command", "reason"), ASKED, ids=[c[:60] for c, _ in ASKED])
def test_unknowable_lines_are_asked_every_time(command: str, reason: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.ASK_EVERY_TIME, assessment
    assert any(reason in given for given in assessment.reasons), assessment.reasons


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_lines_pass(command: str) -> None:
    assert assess(command) == assess("true")
    assert assess(command).verdict is Verdict.ORDINARY
    assert assess(command).reasons == ()
    assert check_command(command) is None


def test_check_command_raises_with_every_reason_and_the_rule() -> None:
    with pytest.raises(RefusedError) as caught:
        check_command("rm -rf /data; mke2fs /dev/block/sda")
    assert str(caught.value) == (
        "refused before asking: recursive deletion of /data; formatting or partitioning "
        "storage (mke2fs); run_shell never runs catastrophic commands"
    )


def test_check_command_answers_why_an_unknowable_line_is_asked() -> None:
    assert check_command("sh -c 'ls'; rm -rf /sd*") == (
        "sh -c runs a command line given as a string; "
        "recursive deletion of /sd*, a glob that may match a protected path"
    )


def test_a_refusal_outranks_and_hides_the_questions() -> None:
    assessment = assess("rm -rf $X; rm -rf /data")
    assert assessment.verdict is Verdict.REFUSE
    assert assessment.reasons == ("recursive deletion of /data",)


def test_the_same_finding_is_reported_once() -> None:
    assessment = assess("rm -rf /data; rm -rf /data")
    assert assessment.reasons == ("recursive deletion of /data",)


def test_the_refusal_names_the_directory_cd_went_to_not_the_root() -> None:
    """Before the parse-based guard this said 'recursive deletion of /'."""
    with pytest.raises(RefusedError, match=r"recursive deletion of /sdcard \(as '\.'\)"):
        check_command("cd /sdcard && rm -rf .")


def test_a_cd_in_a_subshell_does_not_outlive_it() -> None:
    assert assess("(cd /sdcard/Download); rm -rf x").reasons == (
        "recursive deletion of /x (as 'x')",
    )
    assert assess("{ cd /sdcard/Download; }; rm -rf x").verdict is Verdict.ASK_EVERY_TIME


def test_each_stage_of_a_pipeline_starts_where_the_line_is() -> None:
    assert assess("cd /sdcard/Download | rm -rf x").reasons == (
        "recursive deletion of /x (as 'x')",
    )
    # after the pipeline the shell may be in either place
    assert assess("ls | cd /sdcard/Download; rm -rf x").verdict is Verdict.ASK_EVERY_TIME


def test_and_or_lists_follow_success_and_failure() -> None:
    assert assess("cd /data/local/tmp && rm -rf x").verdict is Verdict.ORDINARY
    assert assess("cd /data/local/tmp || rm -rf x").reasons == (
        "recursive deletion of /x (as 'x')",
    )
    assert assess("cd /data/local/tmp || true && rm -rf x").verdict is Verdict.ASK_EVERY_TIME
    assert assess("! cd /data/local/tmp || rm -rf x").verdict is Verdict.ORDINARY
    assert assess("! cd /data/local/tmp && rm -rf x").reasons == (
        "recursive deletion of /x (as 'x')",
    )


def test_if_branches_see_where_the_condition_left_the_shell() -> None:
    assert assess("if cd /data/local/tmp; then rm -rf x; fi").verdict is Verdict.ORDINARY
    both = "if true; then cd /data/local/tmp; else cd /sdcard; fi; rm -rf x"
    assert assess(both).reasons == ("recursive deletion of /x if a cd before it fails",)


def test_a_loop_without_cd_keeps_the_directory_and_one_with_cd_loses_it() -> None:
    assert assess("cd /data/local/tmp || exit; for f in a b; do rm -rf x; done").verdict is (
        Verdict.ORDINARY
    )
    assert assess("cd /data/local/tmp || exit; while false; do :; done; rm -rf x").verdict is (
        Verdict.ORDINARY
    )
    assert assess("cd /data/local/tmp || exit; while false; do cd y; done; rm -rf x").reasons == (
        "recursive deletion of x in a directory only known when the line runs",
    )


def test_a_pipeline_ending_in_cd_may_leave_the_shell_where_it_was() -> None:
    assert assess("ls | cd /sdcard/Download && rm -rf x").reasons == (
        "recursive deletion of /x if a cd before it fails",
    )


def test_nesting_is_followed_to_the_limit_and_asked_beyond() -> None:
    assert assess("eval " * MAX_NESTING + "rm -rf /").verdict is Verdict.REFUSE
    deeper = assess("eval " * (MAX_NESTING + 1) + "rm -rf /")
    assert deeper.verdict is Verdict.ASK_EVERY_TIME
    assert f"commands nested more than {MAX_NESTING} levels deep" in deeper.reasons
    substitutions = "echo $(" * (MAX_NESTING + 1) + "rm -rf /" + ")" * (MAX_NESTING + 1)
    assert assess(substitutions).verdict is Verdict.ASK_EVERY_TIME
    within = "echo $(" * MAX_NESTING + "rm -rf /" + ")" * MAX_NESTING
    assert assess(within).verdict is Verdict.REFUSE


def test_duplicating_a_descriptor_writes_no_file() -> None:
    """`>&2` and `>&-` name descriptors; in an unknown directory a file would be asked."""
    assert assess("cd $D; echo x >&2 2>&-").verdict is Verdict.ORDINARY
    assert assess("cd $D; echo x >&log").reasons == (
        "writes to log in a directory only known when the line runs",
    )


@pytest.mark.parametrize(
    "command",
    [
        "HOME=/storage; cd; rm -rf emulated/0",
        "HOME=/storage cd && rm -rf emulated/0",
        "export HOME=/storage; cd && rm -rf emulated/0",
        "su 0 sh -c 'cd && rm -rf emulated/0'",
        "run-as com.example sh -c 'cd; rm -rf x'",
    ],
)
def test_a_home_the_line_may_change_is_unknown(command: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.ASK_EVERY_TIME
    assert any("in a directory only known when the line runs" in r for r in assessment.reasons)


def test_a_tilde_under_an_unknown_home_is_asked() -> None:
    assert assess("HOME=/storage/emulated; rm -rf ~/0").reasons == (
        "recursive deletion of ~/0 in a directory only known when the line runs",
    )
    assert assess("su 0 ls; rm -rf ~").reasons == (
        "recursive deletion of ~ in a directory only known when the line runs",
    )


def test_wrappers_count_as_nesting_too() -> None:
    assert assess("nohup " * MAX_NESTING + "rm -rf /").verdict is Verdict.REFUSE
    assert assess("nohup " * (MAX_NESTING + 1) + "rm -rf /").reasons == (
        f"commands nested more than {MAX_NESTING} levels deep",
    )
    assert assess("su " * 2000).reasons == (f"commands nested more than {MAX_NESTING} levels deep",)


def test_too_many_places_to_be_is_anywhere() -> None:
    """Each `cd x;` may fail: after MAX_PLACES of them the guard stops keeping them apart."""
    few = "cd /data/local/tmp/a || exit; " + "cd b; " * (MAX_PLACES - 1) + "rm -rf x"
    assert assess(few).verdict is Verdict.ORDINARY
    many = "cd /data/local/tmp/a || exit; " + "cd b; " * MAX_PLACES + "rm -rf x"
    assert assess(many).reasons == (
        "recursive deletion of x in a directory only known when the line runs",
    )


def test_a_long_reason_is_shortened() -> None:
    (reason,) = assess("rm -rf /" + "a" * 500).reasons
    assert len(reason) == MAX_REASON == 200
    assert reason == ("recursive deletion of /" + "a" * 500)[: MAX_REASON - 1] + "…"
    (short,) = assess("rm -rf /" + "a" * (MAX_REASON - 23)).reasons
    assert len(short) == MAX_REASON and not short.endswith("…")


VALUE_OPTIONS = [
    f"{name} {option} rm -rf /data" for name, spec in WRAPPERS.items() for option in spec.values
]


@pytest.mark.parametrize("command", VALUE_OPTIONS)
def test_the_word_after_an_option_that_takes_a_value_is_that_value(command: str) -> None:
    """`timeout -s rm -rf /data` names a signal `rm`, not a command: nothing runs rm."""
    assessment = assess(command)
    assert assessment.verdict is not Verdict.REFUSE, assessment
    assert not any("rm" in reason for reason in assessment.reasons), assessment


@pytest.mark.parametrize("option", sorted(_SU_VALUES))
def test_the_word_after_a_su_option_that_takes_a_value_is_not_the_user(option: str) -> None:
    """`su -s 0 rm -rf /data`: the shell is `0` and the user `rm` (su rejects it)."""
    assert assess(f"su {option} 0 rm -rf /data").verdict is not Verdict.REFUSE
    assert assess(f"su {option} x 0 rm -rf /data").verdict is Verdict.REFUSE


@pytest.mark.parametrize("option", ["-i", "-l", "-e", "-r", "-0", "-t"])
def test_xargs_flags_that_take_no_separate_value(option: str) -> None:
    """GNU's -i/-l/-e take their value attached or none: the next word is the command."""
    assert assess(f"xargs {option} rm -rf /data").reasons == ("recursive deletion of /data",)


def test_xargs_replace_string_stands_for_device_words() -> None:
    assert assess("xargs -I X rm -rf /sdcard/X").verdict is Verdict.ASK_EVERY_TIME
    assert assess("xargs -I X rm -rf /sdcard/X").reasons[-1] == (
        "recursive deletion of <names the device supplies>, a path only known when the line runs"
    )
    assert assess("xargs -I X rm -rf /sdcard").reasons == ("recursive deletion of /sdcard",)


@pytest.mark.parametrize("name", [*sorted(FORMATTERS), "mkfs.vfat", "mke2fs.ext4"])
def test_every_formatter_is_refused(name: str) -> None:
    assert assess(f"{name} /dev/block/sda").reasons == (
        f"formatting or partitioning storage ({name})",
    )


@pytest.mark.parametrize("name", sorted(INERT - {"["}))  # a bare [ reads as a glob: asked
def test_commands_that_never_run_their_arguments_are_not_searched(name: str) -> None:
    """`grep rm -rf /data` only reads; an unknown program's words would be searched."""
    assert assess(f"{name} rm -rf /data").verdict is Verdict.ORDINARY
    assert assess(f"unknown-{name} rm -rf /data").verdict is Verdict.REFUSE
