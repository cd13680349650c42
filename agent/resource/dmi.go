package resource

import semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

// fromDMI derives host.type and cloud.provider from the SMBIOS system vendor
// and product name (Linux /sys/class/dmi/id/sys_vendor and product_name).
//
// The product name is the host type on bare metal ("PowerEdge R650") and on
// most hypervisors ("Standard PC (Q35 + ICH9, 2009)"). On EC2 Nitro instances
// it is the instance type ("c6i.2xlarge"), which is what semconv asks host.type
// to be on a cloud. Google Compute Engine and Alibaba Cloud put their own
// name there instead of the machine type, so the product name is not used for
// them; the vendor still tells the cloud provider. Placeholders that firmware
// vendors leave in the field are dropped.
func fromDMI(vendor, product string) (hostType, cloudProvider string) {
	switch vendor {
	case "Amazon EC2":
		return product, semconv.CloudProviderAWS.Value.AsString()
	case "Google":
		if product == "Google Compute Engine" {
			return "", semconv.CloudProviderGCP.Value.AsString()
		}
	case "Alibaba Cloud":
		return "", semconv.CloudProviderAlibabaCloud.Value.AsString()
	case "Hetzner":
		return product, semconv.CloudProviderHetzner.Value.AsString()
	}
	if placeholderDMI[product] {
		return "", ""
	}
	return product, ""
}

// placeholderDMI are product names that say nothing about the machine.
var placeholderDMI = map[string]bool{
	"":                       true,
	"To Be Filled By O.E.M.": true,
	"To be filled by O.E.M.": true,
	"System Product Name":    true,
	"System product name":    true,
	"Default string":         true,
	"Not Specified":          true,
	"Not Applicable":         true,
	"None":                   true,
	"Type1ProductConfigId":   true,
	"HVM domU":               true,
	"0123456789":             true,
}
