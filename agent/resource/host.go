package resource

import (
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// platformFiles names, relative to the root, the files one operating system
// keeps host facts in. Each OS declares its own in platform_<os>.go; the
// code that reads and parses them is shared and runs everywhere.
type platformFiles struct {
	// osRelease lists os-release(5) files, first found wins.
	osRelease []string
	// kernelName and kernelRelease describe the kernel in os.description;
	// kernelRelease is a file holding the release string.
	kernelName    string
	kernelRelease string
	// systemVersion is macOS's SystemVersion.plist.
	systemVersion string
	// dmiDir holds the SMBIOS strings the kernel exports (Linux
	// /sys/class/dmi/id).
	dmiDir string
	// machineID lists files holding the host's stable ID, first valid wins.
	machineID []string
	// containerMarkers are files that exist only inside a container; when
	// one exists the machine ID belongs to an image, not to a host.
	containerMarkers []string
}

// hostInfo is what the platform files tell.
type hostInfo struct {
	osName, osVersion, osBuildID, osDescription string
	hostID                                      string
	dmiHostType                                 string
	cloudProvider                               string
}

func (h hostInfo) attrs() []attribute.KeyValue {
	var kv []attribute.KeyValue
	add := func(k attribute.Key, v string) {
		if v != "" {
			kv = append(kv, k.String(v))
		}
	}
	add(semconv.OSNameKey, h.osName)
	add(semconv.OSVersionKey, h.osVersion)
	add(semconv.OSBuildIDKey, h.osBuildID)
	add(semconv.OSDescriptionKey, h.osDescription)
	add(semconv.HostIDKey, h.hostID)
	add(semconv.CloudProviderKey, h.cloudProvider)
	return kv
}

// maxFileSize bounds what is read from any one file: these are all a few
// hundred bytes, and a fixture or a broken system must not make New slow.
const maxFileSize = 64 << 10

// readFile reads root/rel, up to maxFileSize bytes, with bare system
// calls (rawfile); nil when it cannot.
func readFile(root, rel string) []byte {
	if rel == "" {
		return nil
	}
	var buf []byte
	n, err := rawfile.ReadFileUpTo(filepath.Join(root, rel), &buf, maxFileSize)
	if err != nil {
		return nil
	}
	return buf[:n]
}

func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, rel))
	return err == nil
}

// readHost reads the files p names under root. Missing or malformed files
// leave their fields empty. release, when not nil, gives the running
// kernel's release, read instead of p.kernelRelease when root is "/".
func readHost(root string, p platformFiles, release func() string) hostInfo {
	var h hostInfo
	for _, rel := range p.osRelease {
		if data := readFile(root, rel); data != nil {
			h.setOSRelease(parseOSRelease(data))
			break
		}
	}
	if p.systemVersion != "" {
		if data := readFile(root, p.systemVersion); data != nil {
			h.setSystemVersion(parsePlistStrings(data))
		}
	}
	kernel := ""
	if release != nil && root == "/" && p.kernelName != "" {
		kernel = release()
	}
	if kernel == "" {
		kernel = strings.TrimSpace(string(readFile(root, p.kernelRelease)))
	}
	if kernel != "" && p.kernelName != "" {
		k := p.kernelName + " " + kernel
		if h.osDescription == "" {
			h.osDescription = k
		} else {
			h.osDescription += " (" + k + ")"
		}
	}
	if p.dmiDir != "" {
		vendor := strings.TrimSpace(string(readFile(root, filepath.Join(p.dmiDir, "sys_vendor"))))
		product := strings.TrimSpace(string(readFile(root, filepath.Join(p.dmiDir, "product_name"))))
		h.dmiHostType, h.cloudProvider = fromDMI(vendor, product)
	}
	inContainer := false
	for _, rel := range p.containerMarkers {
		if exists(root, rel) {
			inContainer = true
			break
		}
	}
	if !inContainer {
		for _, rel := range p.machineID {
			if id := parseMachineID(readFile(root, rel)); id != "" {
				h.hostID = id
				break
			}
		}
	}
	return h
}

func (h *hostInfo) setOSRelease(m map[string]string) {
	h.osName = m["NAME"]
	h.osVersion = m["VERSION_ID"]
	if h.osVersion == "" {
		h.osVersion = m["VERSION"]
	}
	h.osBuildID = m["BUILD_ID"]
	h.osDescription = m["PRETTY_NAME"]
	if h.osDescription == "" {
		h.osDescription = strings.TrimSpace(h.osName + " " + h.osVersion)
	}
}

func (h *hostInfo) setSystemVersion(m map[string]string) {
	h.osName = m["ProductName"]
	h.osVersion = m["ProductVersion"]
	h.osBuildID = m["ProductBuildVersion"]
	h.osDescription = strings.TrimSpace(h.osName + " " + h.osVersion)
	if h.osBuildID != "" {
		h.osDescription += " (" + h.osBuildID + ")"
	}
}

// parseMachineID accepts the contents of /etc/machine-id (32 hex digits) or
// FreeBSD's /etc/hostid (a UUID). Anything else, including systemd's
// "uninitialized" placeholder of a first boot, gives "".
func parseMachineID(data []byte) string {
	id := strings.TrimSpace(string(data))
	if len(id) < 16 || len(id) > 64 {
		return ""
	}
	for _, c := range id {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F', c == '-':
		default:
			return ""
		}
	}
	if strings.Trim(id, "0-") == "" {
		return ""
	}
	return id
}
