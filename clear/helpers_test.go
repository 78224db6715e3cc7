package clear

import (
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

func sharedDir(tb testing.TB) string { return testenv.SharedDir() }

func missingData(tb testing.TB, err error) { tb.Helper(); testenv.Missing(tb, err) }
