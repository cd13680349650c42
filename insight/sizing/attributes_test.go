package sizing

import (
	"testing"

	"github.com/jobtrace/jobtrace/internal/attrdoc"
)

// Every attribute is documented in docs/attributes.md.
func TestAttributesDocumented(t *testing.T) { attrdoc.Check(t, AttributeKeys) }
