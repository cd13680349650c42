package resource

// The files each operating system keeps host facts in. platform_<os>.go
// picks the one New uses; all of them are declared here so that their
// parsing is tested on every OS.

var linuxFiles = platformFiles{
	osRelease:     []string{"etc/os-release", "usr/lib/os-release"},
	kernelName:    "Linux",
	kernelRelease: "proc/sys/kernel/osrelease",
	dmiDir:        "sys/class/dmi/id",
	// semconv: on non-containerised Linux host.id is the machine-id, from
	// /etc/machine-id, else /var/lib/dbus/machine-id.
	machineID: []string{"etc/machine-id", "var/lib/dbus/machine-id"},
	// Docker creates /.dockerenv and Podman /run/.containerenv.
	containerMarkers: []string{".dockerenv", "run/.containerenv"},
}

// macOS keeps its version in SystemVersion.plist. Its host ID (the
// IOPlatformUUID) is only reachable through IOKit or by running ioreg, both
// too slow for New, so host.id is left out.
var darwinFiles = platformFiles{
	systemVersion: "System/Library/CoreServices/SystemVersion.plist",
}

// FreeBSD has os-release(5) since 13.0 and keeps the host UUID in
// /etc/hostid, the source semconv names for host.id there.
var freebsdFiles = platformFiles{
	osRelease: []string{"etc/os-release", "var/run/os-release", "usr/lib/os-release"},
	machineID: []string{"etc/hostid"},
}

// Elsewhere (illumos, the other BSDs, Windows) only os-release is read, where
// the system has one (illumos distributions do); the host ID would need a
// system call or a registry read, so it is left out.
var otherFiles = platformFiles{
	osRelease: []string{"etc/os-release", "usr/lib/os-release"},
}
