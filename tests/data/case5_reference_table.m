function mpc = case5_reference_table
%CASE5_REFERENCE_TABLE  The PJM 5-bus case as the PowerZooJax case table holds it (bus 1 is the
%   reference, gen voltage set points 1.06 / 1.01, its own line impedances), used to reproduce
%   that project's AC power-flow golden with generator Q limits (bus 5 ends at Qmin = -450 MVAr).
mpc.version = '2';
mpc.baseMVA = 100;
%	bus_i	type	Pd	Qd	Gs	Bs	area	Vm	Va	baseKV	zone	Vmax	Vmin
mpc.bus = [
	1	3	0	0	0	0	1	1	0	230	1	1.06	0.94;
	2	1	300	98.6	0	0	1	1	0	230	1	1.06	0.94;
	3	2	300	98.6	0	0	1	1	0	230	1	1.06	0.94;
	4	2	400	131.5	0	0	1	1	0	230	1	1.06	0.94;
	5	2	0	0	0	0	1	1	0	230	1	1.06	0.94;
];
%	bus	Pg	Qg	Qmax	Qmin	Vg	mBase	status	Pmax	Pmin
mpc.gen = [
	1	40	0	30	-30	1.06	100	1	40	5;
	1	170	0	127.5	-127.5	1.06	100	1	170	10;
	3	323.49	0	390	-390	1.01	100	1	520	20;
	4	0	0	150	-150	1.01	100	1	200	10;
	5	466.51	0	450	-450	1.01	100	1	600	20;
];
%	fbus	tbus	r	x	b	rateA	rateB	rateC	ratio	angle	status	angmin	angmax
mpc.branch = [
	1	2	0.0094	0.0281	0.0211	400	400	400	0	0	1	-360	360;
	1	4	0.0101	0.0304	0.0228	0	0	0	0	0	1	-360	360;
	1	5	0.0021	0.0064	0.0048	0	0	0	0	0	1	-360	360;
	2	3	0.0036	0.0108	0.0081	0	0	0	0	0	1	-360	360;
	3	4	0.0099	0.0297	0.0223	0	0	0	0	0	1	-360	360;
	4	5	0.0099	0.0297	0.0223	240	240	240	0	0	1	-360	360;
];
mpc.gencost = [
	2	0	0	2	14	0;
	2	0	0	2	15	0;
	2	0	0	2	30	0;
	2	0	0	2	40	0;
	2	0	0	2	10	0;
];
