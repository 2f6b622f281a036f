#!/usr/bin/env python3
"""An SFTP server (paramiko's) over one folder that answers the way servers other than OpenSSH do.

RollingSync's SFTP backend is tested against OpenSSH, whose answers are precise enough to tell
most failures apart. Other servers are vaguer, and this one reproduces that on purpose:

- every failed mkdir, open, opendir, rename, remove and rmdir answers status 4 (SSH_FX_FAILURE),
  where OpenSSH says "no such file" (2) for a missing parent or a missing file; only stat and
  lstat still answer "no such file" for a missing path, and a refused permission stays 3;
- renaming a file onto an existing directory moves the file *into* that directory, as `mv` does,
  instead of refusing;
- renaming onto an existing file replaces it (POSIX rename), where OpenSSH refuses.

Usage: sftp-generic-failures-server.py --port PORT --root DIR --host-key KEY --authorized-key PUB
Public-key login only (any user name), on 127.0.0.1. Runs in the foreground until killed.
"""
import argparse
import errno
import os
import socket
import threading

import paramiko
from paramiko import SFTPAttributes, SFTPHandle, SFTPServer, SFTPServerInterface
from paramiko.sftp import SFTP_FAILURE, SFTP_NO_SUCH_FILE, SFTP_OK, SFTP_PERMISSION_DENIED


def vague(error):
    """The status for a failed change: permission problems stay precise, the rest is 'failure'."""
    if error.errno in (errno.EACCES, errno.EPERM):
        return SFTP_PERMISSION_DENIED
    return SFTP_FAILURE


def precise(error):
    """The status for a failed stat: 'no such file' for a missing path, as every server says."""
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return SFTP_NO_SUCH_FILE
    return vague(error)


class Login(paramiko.ServerInterface):
    def __init__(self, authorized):
        self.authorized = authorized

    def get_allowed_auths(self, username):
        return "publickey"

    def check_auth_publickey(self, username, key):
        return paramiko.AUTH_SUCCESSFUL if key.get_base64() == self.authorized else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        if kind == "session":
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED


class Handle(SFTPHandle):
    def stat(self):
        try:
            return SFTPAttributes.from_stat(os.fstat(self.readfile.fileno()))
        except OSError as error:
            return precise(error)

    def chattr(self, attr):
        return SFTP_OK


class Folder(SFTPServerInterface):
    """The file system below `root`, which clients see as `/`."""

    def __init__(self, server, root):
        super().__init__(server)
        self.root = root

    def local(self, path):
        inside = os.path.normpath("/" + path).lstrip("/")
        return os.path.join(self.root, inside)

    def canonicalize(self, path):
        return os.path.normpath("/" + path)

    def list_folder(self, path):
        directory = self.local(path)
        try:
            names = os.listdir(directory)
        except OSError as error:
            return vague(error)
        entries = []
        for name in names:
            try:
                attributes = SFTPAttributes.from_stat(os.lstat(os.path.join(directory, name)))
            except FileNotFoundError:
                continue  # renamed or deleted since the directory was read, as readdir would skip it
            attributes.filename = name
            entries.append(attributes)
        return entries

    def stat(self, path):
        try:
            return SFTPAttributes.from_stat(os.stat(self.local(path)))
        except OSError as error:
            return precise(error)

    def lstat(self, path):
        try:
            return SFTPAttributes.from_stat(os.lstat(self.local(path)))
        except OSError as error:
            return precise(error)

    def open(self, path, flags, attr):
        local = self.local(path)
        try:
            descriptor = os.open(local, flags, 0o644)
        except OSError as error:
            return vague(error)
        if flags & os.O_WRONLY:
            mode = "ab" if flags & os.O_APPEND else "wb"
        elif flags & os.O_RDWR:
            mode = "a+b" if flags & os.O_APPEND else "r+b"
        else:
            mode = "rb"
        try:
            file = os.fdopen(descriptor, mode)  # fails for a directory
        except OSError as error:
            os.close(descriptor)
            return vague(error)
        handle = Handle(flags)
        handle.filename = local
        handle.readfile = handle.writefile = file
        return handle

    @staticmethod
    def change(call, *arguments):
        """Runs one change of the file system; any failure is answered vaguely."""
        try:
            call(*arguments)
        except OSError as error:
            return vague(error)
        return SFTP_OK

    def remove(self, path):
        return self.change(os.remove, self.local(path))

    def rename(self, oldpath, newpath):
        source, target = self.local(oldpath), self.local(newpath)
        if os.path.isdir(target) and not os.path.isdir(source):
            target = os.path.join(target, os.path.basename(source))
        return self.change(os.rename, source, target)

    def posix_rename(self, oldpath, newpath):
        return self.rename(oldpath, newpath)

    def mkdir(self, path, attr):
        return self.change(os.mkdir, self.local(path))

    def rmdir(self, path):
        return self.change(os.rmdir, self.local(path))

    def chattr(self, path, attr):
        return SFTP_OK


def serve(connection, host_key, authorized, root):
    transport = paramiko.Transport(connection)
    transport.add_server_key(host_key)
    transport.set_subsystem_handler("sftp", SFTPServer, Folder, root)
    try:
        transport.start_server(server=Login(authorized))
    except (paramiko.SSHException, EOFError, OSError):
        transport.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--host-key", required=True)
    parser.add_argument("--authorized-key", required=True)
    arguments = parser.parse_args()
    host_key = paramiko.Ed25519Key(filename=arguments.host_key)
    with open(arguments.authorized_key) as file:
        authorized = file.read().split()[1]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", arguments.port))
    listener.listen(100)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, host_key, authorized, arguments.root), daemon=True).start()


if __name__ == "__main__":
    main()
