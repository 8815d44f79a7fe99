# ExtractPftmodes.pm - libfaultgen's pft in its new modes (pftmodes): each
# pft-MODE-N.log holds one JSON object a run ("pft-run/1") and the summary
# of the runs ("pft-summary/1"), among any stderr lines.  Every run gives
# one sample of faults/sec-MODE-N, pft's figure of record (legacy
# fault_per_wsec: the median of the rounds' rates in the zap modes), and of
# faults/cpu-MODE-N (pages per CPU second).
#
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The libfaultgen authors
package MMTests::ExtractPftmodes;
use MMTests::SummariseMultiops;
our @ISA = qw(MMTests::SummariseMultiops);

use JSON::PP;
use strict;

sub initialise() {
	my ($self, $subHeading) = @_;
	$self->{_ModuleName} = "ExtractPftmodes";
	$self->{_PlotYaxis}  = DataTypes::LABEL_OPS_PER_SECOND;
	$self->{_PreferredVal} = "Higher";
	$self->{_PlotType}   = "client-errorlines";
	$self->{_Precision} = 4;
	$self->{_FieldLength} = 14;
	$self->SUPER::initialise($subHeading);
}

# "MODE-N" of every pft-MODE-N.log, modes in their order, N ascending.
sub discover_runs {
	my ($reportDir) = @_;
	my %byMode;

	foreach my $file (<$reportDir/pft-*-*.log>) {
		next unless $file =~ /\/pft-([a-z-]+)-([0-9]+)\.log$/;
		push @{$byMode{$1}}, $2;
	}
	my @runs;
	foreach my $mode (sort keys %byMode) {
		foreach my $n (sort { $a <=> $b } @{$byMode{$mode}}) {
			push @runs, "$mode-$n";
		}
	}
	return @runs;
}

sub extractReport() {
	my ($self, $reportDir) = @_;
	my $json = JSON::PP->new;
	my @runs = discover_runs($reportDir);

	foreach my $run (@runs) {
		my $file = "$reportDir/pft-$run.log";
		my $nr_samples = 0;

		open(INPUT, $file) || die("Failed to open $file\n");
		while (my $line = <INPUT>) {
			next unless $line =~ /^\{/;
			my $obj = eval { $json->decode($line) };
			die("$file: not JSON: $line") unless defined $obj;
			next unless $obj->{"schema"} eq "pft-run/1";

			my $legacy = $obj->{"legacy"};
			$nr_samples++;
			$self->addData("faults/cpu-$run", $nr_samples,
				$legacy->{"flt_per_cpu_s"});
			$self->addData("faults/sec-$run", $nr_samples,
				$legacy->{"fault_per_wsec"});
		}
		close INPUT;
		die("$file: no pft-run/1 object\n") unless $nr_samples;
	}

	my @ops;
	foreach my $heading ("faults/cpu", "faults/sec") {
		foreach my $run (@runs) {
			push @ops, "$heading-$run";
		}
	}
	$self->{_Operations} = \@ops;
}

1;
