# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in for mmtests' MMTests::SummariseMultiops with the interface
# contrib/mmtests/bin/lib/MMTests/ExtractPftmodes.pm uses: each addData
# call is printed as "OPERATION SAMPLE VALUE" (tests/harness-mmtests.sh).
package MMTests::SummariseMultiops;
use MMTests::DataTypes;
use strict;

sub new {
	my $class = shift;
	return bless {}, $class;
}

sub initialise {
	my ($self, $subHeading) = @_;
	die "no _ModuleName\n" unless $self->{_ModuleName};
	die "no _PreferredVal\n" unless $self->{_PreferredVal};
}

sub addData {
	my ($self, $op, $sample, $val) = @_;
	die "$op: sample $sample: no value\n" unless defined $val;
	print "$op $sample $val\n";
}

1;
